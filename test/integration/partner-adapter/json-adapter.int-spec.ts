import { createHash, randomUUID } from 'node:crypto';
import type { PartnerRef } from '@lr/contracts';
import { DEFAULT_SEARCH_FIELDS, partnerSearchView, validateCatalog } from '@lr/domain';
import { JsonPartnerAdapter } from '../../../apps/partner-adapter/src/adapters/json/json-partner.adapter';
import type { PartnerSubmitCall } from '../../../apps/partner-adapter/src/adapters/partner-adapter';
import { PartnerConfigError, PartnerHttpError } from '../../../apps/partner-adapter/src/adapters/partner-errors';
import { withDeadline } from '../../../apps/partner-adapter/src/calls/deadline';
import { exchangeApiKey } from '../../../apps/sandbox/src/exchange/exchange-protocol';
import { exchangePartner } from '../../support/exchange-partner';
import { uniqueSuffix } from '../../support/test-env';
import { OFFERS, useSandbox } from './harness';

/**
 * The json adapter configured for the sandbox's exchange protocol, a shape
 * foreign to ours, against the in-process sandbox: the catalog entry as
 * `catalog apply` validates it, the mapped search and submit bodies the
 * exchange received, its answers read back into our shape.
 */
describe('json adapter against the sandbox exchange protocol', () => {
  const s = useSandbox();
  const KEY_VAR = 'IT_EXCHANGE_KEY';

  /** A json partner under a fresh exchange name, as the catalog validates and stores it. */
  function partner(query: string, key = (name: string) => exchangeApiKey(name)) {
    const name = `ex-${uniqueSuffix()}`;
    const entry = exchangePartner(randomUUID(), name, `${s.sandbox.url}/exchange/${name}?${query}`, KEY_VAR);
    const { catalog, issues } = validateCatalog({ partners: [entry] });
    expect(issues).toEqual([]);
    const p = catalog!.partners[0];
    const ref: PartnerRef = {
      id: p.id,
      name,
      adapter: p.adapter,
      baseUrl: p.base_url,
      timeoutMs: p.timeout_ms,
      settings: p.settings as Record<string, unknown>,
    };
    return { ref, adapter: new JsonPartnerAdapter({ [KEY_VAR]: key(name) }) };
  }
  const received = async (ref: PartnerRef) => {
    const res = await fetch(`${s.sandbox.url}/exchange/${ref.name}/received`);
    return (await res.json()) as { leads: Array<{ body: any; headers: Record<string, string> }>; searches: Array<{ body: any }> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- what the sandbox partner received, JSON of any shape; each test reads the fields it asserts on.
  };
  const lead = {
    personal: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
    address: { state: 'CA', zip_code: '90210' },
  };
  /** What the orchestrator sends this partner of the default search fields (libs/domain partnerSearchView): no contact data. */
  const view = partnerSearchView({ lead, tracking: { subid: 's-1', ip_address: '203.0.113.9' } }, DEFAULT_SEARCH_FIELDS, new Date());
  const search = (p: ReturnType<typeof partner>, offers = OFFERS.slice(0, 2)) =>
    withDeadline(3000, (signal) => p.adapter.search(p.ref, { searchId: randomUUID(), offers, ...view, isTest: false }, signal));
  const submitCall = (): PartnerSubmitCall => ({
    searchId: randomUUID(),
    partnerResultId: 'mt_1',
    externalId: 'westlake-001',
    lead,
    programId: 'it',
    answers: { hs_grad_year: '2015' },
    idempotencyKey: randomUUID(),
    tracking: { subid: 's-1' },
    consumerIp: '203.0.113.9',
    consent: {
      tcpaConsent: true,
      tcpaText: 'I agree',
      buttonLabel: 'Request info',
      consentedAt: '2026-01-05T14:03:07.000Z',
      ip: '203.0.113.9',
      formCertUrl: null,
      universalLeadCert: null,
    },
    submittedAt: '2026-01-05T14:03:07.000Z',
  });
  const submit = (p: ReturnType<typeof partner>, call = submitCall()) =>
    withDeadline(3000, (signal) => p.adapter.submit(p.ref, call, signal));

  it('sends the mapped search with its API key and reads the foreign answer into our results, and nothing else', async () => {
    const p = partner('match=all');
    const results = await search(p);
    expect(results.map((r) => [r.offerId, r.externalId])).toEqual(OFFERS.slice(0, 2).map((o) => [o.offerId, o.externalId]));
    for (const r of results) {
      expect(r.partnerResultId).toMatch(/^mt_[0-9a-f]{24}$/);
      expect(r.programs.length).toBeGreaterThan(0);
      expect([600, 900, 1800, 3600]).toContain(r.expiresInSeconds);
      expect(r.school?.name).toBeTruthy();
      expect(r.tcpaText).toContain(r.school!.name);
      for (const f of r.formFields) expect(['select', 'text']).toContain(f.type);
    }
    expect(JSON.stringify(results)).not.toMatch(/38\.50|Payout|USD/);
    const [got] = (await received(p.ref)).searches;
    expect(got.body).toEqual({
      RequestId: expect.any(String),
      Campaigns: ['westlake-001', 'harbor-002'],
      Applicant: { State: 'CA', PostalCode: '90210', EmailSha256: createHash('sha256').update('ada@example.com').digest('hex') },
      Source: { SubId: 's-1' },
      TestMode: false,
    });
  });

  it('submits the mapped application with answers, consent and Idempotency-Key, and reads Approved', async () => {
    const p = partner('outcome=accept');
    const call = submitCall();
    await expect(submit(p, call)).resolves.toEqual({
      kind: 'accepted',
      partnerLeadId: expect.stringMatching(new RegExp(`^${p.ref.name}-[0-9a-f]{12}$`)),
    });
    const [got] = (await received(p.ref)).leads;
    expect(got.headers['idempotency-key']).toBe(call.idempotencyKey);
    expect(got.body).toEqual({
      MatchToken: 'mt_1',
      CampaignCode: 'westlake-001',
      ProgramCode: 'it',
      Applicant: { FirstName: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com', PostalCode: '90210' },
      Responses: { hs_grad_year: '2015' },
      Consent: {
        Given: true,
        Text: 'I agree',
        ButtonLabel: 'Request info',
        Timestamp: '2026-01-05T14:03:07.000Z',
        IpAddress: '203.0.113.9',
      },
      ExternalRef: call.idempotencyKey,
    });
  });

  it('reads Declined and a 409 AlreadyOnFile by the response rules, keeping the partner reason for operators', async () => {
    await expect(submit(partner('outcome=reject&reason=Outside%20our%20area'))).resolves.toEqual({
      kind: 'rejected',
      partnerReason: 'Outside our area',
    });
    await expect(submit(partner('outcome=duplicate'))).resolves.toEqual({ kind: 'duplicate', partnerReason: 'Applicant already on file' });
  });

  it('fails as the partner answers: a wrong API key is HTTP 401, an error 500; an unset key sends nothing', async () => {
    await expect(search(partner('match=all', () => 'wrong-key'))).rejects.toEqual(new PartnerHttpError(401, ''));
    await expect(submit(partner('outcome=error'))).rejects.toEqual(new PartnerHttpError(500, ''));
    const unset = partner('match=all');
    const adapter = new JsonPartnerAdapter({});
    const error = await withDeadline(3000, (signal) =>
      adapter.search(unset.ref, { searchId: 's', offers: OFFERS.slice(0, 1), lead, tracking: {}, isTest: false }, signal),
    ).catch((e: unknown) => e);
    expect(error).toEqual(new PartnerConfigError(`header X-Api-Key: environment variable ${KEY_VAR} is not set`));
    expect((await received(unset.ref)).searches).toHaveLength(0);
  });
});
