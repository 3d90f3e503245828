import { randomUUID } from 'node:crypto';
import { RunningSandbox } from '../../../apps/sandbox/src/sandbox-app';
import { exchangeApiKey } from '../../../apps/sandbox/src/exchange/exchange-protocol';
import { partnerResult } from '../../../apps/sandbox/src/partners/partner-results';
import { call, startSandbox } from './sandbox-harness';

/** The exchange protocol (docs/sandbox.md): a foreign partner shape with an API key and the sandbox's controls. */
describe('sandbox exchange partners', () => {
  let sandbox: RunningSandbox;
  let n = 0;
  const exchange = () => `exchange${++n}`;
  const url = (name: string, op: 'v2/match' | 'v2/applications' | 'received', query = '') =>
    `${sandbox.url}/exchange/${name}/${op}${query ? `?${query}` : ''}`;
  const key = (name: string) => ({ 'x-api-key': exchangeApiKey(name) });
  const match = (name: string, body: unknown, query = '', headers: Record<string, string> = key(name)) =>
    call(url(name, 'v2/match', query), { body, headers });
  const apply = (name: string, body: unknown, query = '', headers: Record<string, string> = key(name)) =>
    call(url(name, 'v2/applications', query), { body, headers });
  const application = {
    MatchToken: 'mt_1',
    CampaignCode: 'westlake-001',
    ProgramCode: 'it',
    Responses: { hs_grad_year: '2015' },
    Consent: { Given: true, Text: 'I agree' },
  };

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  it('answers a match in its own shape: the sandbox partner content, programs holding their questions, minutes, a payout', async () => {
    const name = exchange();
    const RequestId = randomUUID();
    const a = await match(
      name,
      { RequestId, Campaigns: ['westlake-001', 'harbor-002', 'summit-003'], Applicant: { Email: 'ada@example.com' } },
      'match=some',
    );
    expect(a.status).toBe(200);
    expect(a.body.RequestId).toBe(RequestId);
    expect(a.body.Data.Matches.map((m: { CampaignCode: string }) => m.CampaignCode)).toEqual(['westlake-001', 'summit-003']);
    const [m] = a.body.Data.Matches;
    const same = partnerResult(name, RequestId, 'westlake-001');
    expect(m).toEqual({
      CampaignCode: 'westlake-001',
      MatchToken: same.partner_result_id.replace(/^pr_/, 'mt_'),
      Institution: { DisplayName: same.school.name, LogoUrl: same.school.logo_url },
      Disclosure: same.tcpa_text,
      ValidForMinutes: same.expires_in_seconds / 60,
      Payout: { Amount: '38.50', Currency: 'USD' },
      Programs: same.programs.map((p) => ({ Code: p.value, Title: p.label, Questions: expect.any(Array) })),
    });
    for (const p of m.Programs) {
      for (const q of p.Questions) expect(Object.keys(q)).toEqual(expect.arrayContaining(['Key', 'Prompt', 'Kind', 'Mandatory']));
    }
    const got = (await call(url(name, 'received'))).body;
    expect([got.search_count, got.searches[0].body.Applicant]).toEqual([1, { Email: 'ada@example.com' }]);
    expect((await call(`${sandbox.url}/received`)).body.exchanges[name]).toMatchObject({ search_count: 1, count: 0 });
  });

  it('refuses a missing or wrong API key with 401, recording nothing', async () => {
    const name = exchange();
    const none = await match(name, { RequestId: 'r', Campaigns: [] }, '', {});
    const wrong = await apply(name, application, '', { 'x-api-key': exchangeApiKey('someone-else') });
    expect([none.status, none.body, wrong.status]).toEqual([
      401,
      { ErrorCode: 'Unauthorized', Message: 'A valid X-Api-Key header is required' },
      401,
    ]);
    expect((await call(url(name, 'received'))).body).toMatchObject({ count: 0, search_count: 0 });
  });

  it('answers applications in its vocabulary, replays an Idempotency-Key, and refuses a body without consent', async () => {
    const name = exchange();
    const idem = { ...key(name), 'idempotency-key': randomUUID() };
    const approved = await apply(name, application, 'outcome=accept', idem);
    expect([approved.status, approved.body]).toEqual([
      201,
      { Decision: 'Approved', ApplicationId: expect.stringMatching(new RegExp(`^${name}-[0-9a-f]{12}$`)) },
    ]);
    const again = await apply(name, application, 'outcome=reject', idem);
    expect([again.status, again.body, again.headers.get('idempotent-replayed')]).toEqual([201, approved.body, 'true']);
    const declined = await apply(name, application, 'outcome=reject&reason=Program%20full');
    expect([declined.status, declined.body]).toEqual([200, { Decision: 'Declined', Reason: 'Program full' }]);
    const onFile = await apply(name, application, 'outcome=duplicate');
    expect([onFile.status, onFile.body]).toEqual([409, { Decision: 'AlreadyOnFile', Reason: 'Applicant already on file' }]);
    const failed = await apply(name, application, 'outcome=error');
    expect([failed.status, failed.body]).toEqual([500, { ErrorCode: 'InternalError' }]);
    const noConsent = await apply(name, { ...application, Consent: { Text: 'I agree' } });
    expect([noConsent.status, noConsent.body.param]).toEqual([400, 'Consent.Given']);
    const got = (await call(url(name, 'received'))).body;
    expect(got.leads.map((l: { outcome: string }) => l.outcome)).toEqual(['accept', 'reject', 'duplicate', 'error']);
    expect(got.leads[0].body).toEqual(application);
  });
});
