import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MESSAGE_TYPES, PartnerRef, PartnerSubmitRequestedV1 } from '@lr/contracts';
import { createDataSource, ProcessedMessages } from '@lr/persistence';
import type { PartnerSubmitCall } from '../../../apps/partner-adapter/src/adapters/partner-adapter';
import { PartnerHttpError, PartnerTimeoutError } from '../../../apps/partner-adapter/src/adapters/partner-errors';
import { SandboxPartnerAdapter } from '../../../apps/partner-adapter/src/adapters/sandbox/sandbox-adapter';
import { PartnerAdapterRegistry } from '../../../apps/partner-adapter/src/adapters/adapter-registry';
import { PartnerCircuitBreakers } from '../../../apps/partner-adapter/src/calls/circuit-breakers';
import { withDeadline } from '../../../apps/partner-adapter/src/calls/deadline';
import { PartnerCalls } from '../../../apps/partner-adapter/src/calls/partner-calls';
import { SubmitToPartner } from '../../../apps/partner-adapter/src/submit-to-partner/submit-to-partner.usecase';
import { TEST_DATABASE_URL } from '../../support/test-env';
import { received, sandboxPartner, useSandbox } from './harness';
import { keyStoreSealer } from '../../support/medium-world';

/** What every submit also carries besides the result, the lead and the answers. */
const BUYER_FIELDS = {
  externalId: 'westlake-001',
  tracking: { sub_id: 's1' },
  consumerIp: '203.0.113.9',
  consent: {
    tcpaConsent: true,
    tcpaText: 'Westlake may contact me',
    buttonLabel: 'Request Info',
    consentedAt: '2026-09-22T08:00:00.000Z',
    ip: '203.0.113.9',
    formCertUrl: null,
    universalLeadCert: null,
  },
  submittedAt: new Date().toISOString(),
};

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
    ...BUYER_FIELDS,
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
    await expect(submit(partner, submitCall({ programId: null }))).resolves.toEqual({
      kind: 'rejected',
      partnerReason: 'Outside our area',
    });
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

describe('partner submit handler: at most once per request', () => {
  const s = useSandbox();
  const breakers = new PartnerCircuitBreakers({});
  let ds: DataSource;
  let service: SubmitToPartner;

  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 2 });
    await ds.initialize();
    service = new SubmitToPartner(
      new PartnerCalls(new PartnerAdapterRegistry(), breakers),
      new ProcessedMessages(ds),
      keyStoreSealer(TEST_DATABASE_URL),
    );
  });

  afterAll(async () => {
    breakers.onModuleDestroy();
    await ds.destroy();
  });

  it('a copy of a request handled before (a redelivery after a crash mid-call) is not sent again, and answers interrupted (to reconcile) when delivery stops waiting', async () => {
    const partner = sandboxPartner(s.sandbox, 'outcome=accept&delay_ms=50');
    const req: PartnerSubmitRequestedV1 = {
      leadId: randomUUID(),
      searchId: randomUUID(),
      partner,
      partnerResultId: 'pr_63ab35464495b434db25e2ea',
      lead: { personal: { email: 'ada@example.com' } },
      programId: 'it',
      answers: { hs_grad_year: '2015' },
      ...BUYER_FIELDS,
      notAfter: new Date(Date.now() + 1_500).toISOString(),
    };
    const meta = { messageId: `partner-submit:${req.leadId}`, type: MESSAGE_TYPES.PartnerSubmitRequested };
    await expect(service.submit(req, meta)).resolves.toEqual({
      leadId: req.leadId,
      outcome: 'accepted',
      partnerLeadId: expect.any(String),
    });

    const again = await service.submit(req, meta);
    expect(again).toEqual({ leadId: req.leadId, outcome: 'interrupted', detail: expect.stringContaining('not sent again') });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(req.notAfter));
    expect((await received(s.sandbox, partner)).total_received).toBe(1);
  });

  it('a request whose lead cannot be opened because the key store is away fails before it is claimed: its redelivery is sent, once', async () => {
    const partner = sandboxPartner(s.sandbox, 'outcome=accept');
    const sealer = keyStoreSealer(TEST_DATABASE_URL);
    const leadId = randomUUID();
    const { readable, contact } = await sealer.sealRecord(
      leadId,
      { lead: { personal: { email: 'ada@example.com' } }, tracking: {}, consumerIp: '203.0.113.7', ipSource: 'consumer' },
      new Date(),
    );
    const req: PartnerSubmitRequestedV1 = {
      leadId,
      searchId: randomUUID(),
      partner,
      partnerResultId: 'pr_63ab35464495b434db25e2ea',
      lead: readable.lead,
      programId: 'it',
      answers: { hs_grad_year: '2015' },
      ...BUYER_FIELDS,
      consumerIp: readable.consumerIp,
      contact,
      notAfter: new Date(Date.now() + 5_000).toISOString(),
    };
    const meta = { messageId: `partner-submit:${leadId}`, type: MESSAGE_TYPES.PartnerSubmitRequested };
    const keyStoreAway = new SubmitToPartner(
      new PartnerCalls(new PartnerAdapterRegistry(), breakers),
      new ProcessedMessages(ds),
      keyStoreSealer('postgres://postgres@127.0.0.1:1/nowhere_test', { cached: false }),
    );

    await expect(keyStoreAway.submit(req, meta)).rejects.toThrow();
    expect((await received(s.sandbox, partner)).total_received).toBe(0);
    await expect(service.submit(req, meta)).resolves.toMatchObject({ leadId, outcome: 'accepted' });
    expect((await received(s.sandbox, partner)).total_received).toBe(1);
  });
});
