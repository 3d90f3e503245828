import { randomUUID } from 'node:crypto';
import type { PartnerRef } from '@lr/contracts';
import type { PartnerSubmitCall } from '../../../apps/partner-adapter/src/adapters/partner-adapter';
import { PartnerHttpError, PartnerTimeoutError } from '../../../apps/partner-adapter/src/adapters/partner-errors';
import { SandboxPartnerAdapter } from '../../../apps/partner-adapter/src/adapters/sandbox/sandbox-adapter';
import { withDeadline } from '../../../apps/partner-adapter/src/calls/deadline';
import { received, sandboxPartner, useSandbox } from './harness';

describe('sandbox adapter submit against the sandbox partner', () => {
  const s = useSandbox();
  const adapter = new SandboxPartnerAdapter();
  const submitCall = (overrides: Partial<PartnerSubmitCall> = {}): PartnerSubmitCall => ({
    searchId: randomUUID(),
    partnerResultId: 'pr_63ab35464495b434db25e2ea',
    lead: { personal: { email: 'ada@example.com' } },
    programId: 'it',
    answers: { hs_grad_year: '2015' },
    idempotencyKey: randomUUID(),
    ...overrides,
  });
  const submit = (partner: PartnerRef, call: PartnerSubmitCall, deadlineMs = 2_000) =>
    withDeadline(deadlineMs, (signal) => adapter.submit(partner, call, signal));


  it('posts the submit with its Idempotency-Key and reads accepted', async () => {
    const partner = sandboxPartner(s.sandbox, 'outcome=accept');
    const call = submitCall();
    const outcome = await submit(partner, call);
    expect(outcome).toEqual({ kind: 'accepted', partnerLeadId: expect.stringMatching(new RegExp(`^${partner.name}-[0-9a-f]{12}$`)) });
    const got = await received(s.sandbox, partner);
    expect(got.total_received).toBe(1);
    expect(got.leads[0].headers['idempotency-key']).toBe(call.idempotencyKey);
    expect(got.leads[0].body).toEqual({
      partner_result_id: call.partnerResultId,
      search_id: call.searchId,
      lead: call.lead,
      program_id: 'it',
      answers: call.answers,
    });
  });

  it('gets the first answer again for a repeated Idempotency-Key, with no second lead', async () => {
    const partner = sandboxPartner(s.sandbox, 'outcome=accept');
    const call = submitCall();
    const first = await submit(partner, call);
    const again = await submit(partner, call);
    expect(again).toEqual(first);
    expect((await received(s.sandbox, partner)).total_received).toBe(1);
  });

  it("reads rejected with the partner's reason", async () => {
    const partner = sandboxPartner(s.sandbox, 'outcome=reject&reason=Outside%20our%20area');
    await expect(submit(partner, submitCall({ programId: null }))).resolves.toEqual({ kind: 'rejected', partnerReason: 'Outside our area' });
  });

  it('reads duplicate', async () => {
    await expect(submit(sandboxPartner(s.sandbox, 'outcome=duplicate'), submitCall())).resolves.toEqual({ kind: 'duplicate' });
  });

  it('throws PartnerHttpError on a 500 and PartnerTimeoutError when the partner never answers', async () => {
    await expect(submit(sandboxPartner(s.sandbox, 'outcome=error'), submitCall())).rejects.toMatchObject({ status: 500 });
    await expect(submit(sandboxPartner(s.sandbox, 'outcome=error'), submitCall())).rejects.toBeInstanceOf(PartnerHttpError);
    const started = Date.now();
    await expect(submit(sandboxPartner(s.sandbox, 'outcome=timeout'), submitCall(), 300)).rejects.toBeInstanceOf(PartnerTimeoutError);
    expect(Date.now() - started).toBeLessThan(300 + 300);
  });
});
