import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { campaign, ownOffer } from '../support/catalog-builder';
import { call, HttpAnswer } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey, issueSchoolKey, runOps } from '../support/ops';
import { person, SubmitClient } from '../support/submit-flow';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';

const RETURNS = '/api/v1/buyer/returns';

/**
 * Returns and statements end to end (docs/returns.md), over HTTP against the
 * built gateway, checks, delivery and the sandbox's school, and the built
 * operator CLI: a school's key returns a lead it bought (the affiliate's lead
 * status and statement show the reversal, the statement's totals exact and
 * equal to ops report's), the refusals in the contract's envelope, two
 * concurrent returns with one effect, a cap slot given back letting exactly
 * one more submit through, another school's key learning nothing, and 503
 * while PostgreSQL is away from a gateway (a second one, behind a TCP proxy).
 * Leads are direct posts of fresh people (no search needed).
 */
describe('returns and statements (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix, { SUBMIT_ANSWER_TIMEOUT_MS: '5000' });
  const id = () => randomUUID();
  const ids = { aff: id(), school: id(), otherSchool: id(), oMain: id(), oCap: id(), oOther: id(), campaign: id() };
  const policy = { window_days: 7, reasons: ['wrong_number', 'not_the_person'] };
  let sandbox: RunningApp;
  let gateway: RunningApp;
  let affiliate: SubmitClient;
  let schoolKey: string;
  let otherSchoolKey: string;
  let db: Client;
  /** A second gateway reaches PostgreSQL through this proxy, so the last test can take PostgreSQL away from it. */
  const postgres = new TcpProxy(5432);

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    const url = `${sandbox.url}/schools/ret${suffix}/leads?outcome=accept`;
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'Returns affiliate', status: 'active' }],
        schools: [
          { id: ids.school, name: 'Returns school', logo_url: null },
          { id: ids.otherSchool, name: 'Other school', logo_url: null },
        ],
        offers: [
          ownOffer(ids.oMain, ids.school, 'Returns main', url, { price: 40.1, returns: { ...policy, refunds_cap: false } }),
          ownOffer(ids.oCap, ids.school, 'Returns capped', url, {
            price: 30,
            caps: [{ period: 'total', limit: 1 }],
            returns: { ...policy, refunds_cap: true },
          }),
          ownOffer(ids.oOther, ids.otherSchool, 'Other school offer', url, { price: 10, returns: policy }),
        ],
        campaigns: [
          campaign(ids.campaign, ids.aff, 'Returns', [
            { offer_id: ids.oMain, payout: 12.35 },
            { offer_id: ids.oCap, payout: 5 },
            { offer_id: ids.oOther, payout: 1 },
          ]),
        ],
      },
      env,
    );
    const roomy = ['--limit', 'leads=6000/1000'];
    affiliate = new SubmitClient('', issueKey(ids.aff, env, roomy).key, ids.aff);
    schoolKey = issueSchoolKey(ids.school, env, ['--limit', 'returns=6000/1000']).key;
    otherSchoolKey = issueSchoolKey(ids.otherSchool, env).key;
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await Promise.all([startApp('checks', env), startApp('delivery', env)]);
    gateway = await startApp('gateway', env);
    affiliate = new SubmitClient(gateway.url, affiliate.key, ids.aff);
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
    await postgres.close();
    await db?.end();
  });

  /** A fresh person posted to the offer and accepted by the school; its svc_lead_id. */
  async function sold(offerId = ids.oMain): Promise<string> {
    const res = await affiliate.directPost(ids.campaign, offerId, person(), { program_id: 'gen' });
    expect([res.status, res.body.code]).toEqual([200, 'ACCEPTED']);
    return res.body.svc_lead_id as string;
  }
  const giveBack = (leadId: string, reason = 'wrong_number', key = schoolKey, extra: Record<string, unknown> = {}): Promise<HttpAnswer> =>
    call(gateway.url, 'POST', RETURNS, { key, body: { svc_lead_id: leadId, reason, ...extra } });
  const returnRows = async (leadId: string) =>
    (await db.query(`SELECT reason, payout_reversal, price_reversal FROM lead_returns WHERE lead_id = $1`, [leadId])).rows;

  it("a school returns a lead inside its window: the lead status and the affiliate's statement show the reversal, totals exact and as ops report counts them", async () => {
    const from = new Date(Date.now() - 1000).toISOString();
    const [kept, returned] = [await sold(), await sold()];
    const res = await giveBack(returned, 'wrong_number', schoolKey, { note: 'the number rings a bakery' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 'OK',
      status: 'accepted',
      reason: 'Lead returned',
      success: true,
      retryable: false,
      svc_lead_id: returned,
      returned: { at: expect.any(String), reason: 'wrong_number' },
    });
    expect(res.text).not.toContain('price');
    const status = await affiliate.leadStatus(returned);
    expect([status.body.code, status.body.payout, status.body.returned]).toEqual(['ACCEPTED', 12.35, res.body.returned]);
    expect((await affiliate.leadStatus(kept)).body.returned).toBeNull();

    const to = new Date(Date.now() + 1000).toISOString();
    const statement = runOps(['statement', '--affiliate', ids.aff, '--from', from, '--to', to, '--format', 'json'], env);
    expect([statement.code, statement.stderr]).toEqual([0, expect.stringMatching(/^statement: 2 accepted, 1 returns in [\d.]+ s\n$/)]);
    const json = JSON.parse(statement.stdout);
    expect(json.accepted.map((l: { svc_lead_id: string; amount: string }) => [l.svc_lead_id, l.amount])).toEqual([
      [kept, '12.35'],
      [returned, '12.35'],
    ]);
    expect(json.returns).toEqual([
      expect.objectContaining({ svc_lead_id: returned, reason: 'wrong_number', amount: '-12.35', returned_at: res.body.returned.at }),
    ]);
    expect(json.totals).toEqual({ accepted: 2, gross: '24.70', returns: 1, returned: '-12.35', net: '12.35' });
    const report = JSON.parse(
      runOps(['report', '--from', from, '--to', to, '--by', 'affiliate', '--affiliate', ids.aff, '--json'], env).stdout,
    );
    expect([report.totals.accepted, report.totals.payouts.toFixed(2)]).toEqual([2, '24.70']);

    const school = runOps(['statement', '--school', ids.school, '--from', from, '--to', to], env);
    expect(school.stdout.trimEnd().split('\n').slice(-3)).toEqual(['gross,,,,,,80.20,2', 'returns,,,,,,-40.10,1', 'net,,,,,,40.10,']);
    const show = runOps(['lead', 'show', returned], env);
    expect(show.stdout).toMatch(
      /returned +\S+ by the school \(api\), reason wrong_number; payout reversed -12\.35, price reversed -40\.10; no cap slot given back/,
    );
  });

  it("refuses in the contract's envelope: past the window or already returned 409, an unknown reason 400 naming it, the wrong key 401/403, a large body 413, another method 405", async () => {
    const old = await sold();
    await db.query(`UPDATE leads SET decided_at = now() - interval '8 days' WHERE id = $1`, [old]);
    const late = await giveBack(old);
    expect([late.status, late.body.code, late.body.status, late.body.reason, late.body.success]).toEqual([
      409,
      'RETURN_WINDOW_CLOSED',
      'rejected',
      'Return window closed',
      false,
    ]);

    const lead = await sold();
    const unknown = await giveBack(lead, 'changed_mind');
    expect([unknown.status, unknown.body.code, unknown.body.field, unknown.body.reason]).toEqual([
      400,
      'INVALID_FIELD',
      'reason',
      "reason must be one of the offer's return reasons: wrong_number, not_the_person",
    ]);
    const missing = await call(gateway.url, 'POST', RETURNS, { key: schoolKey, body: { svc_lead_id: lead } });
    expect([missing.status, missing.body.code, missing.body.field]).toEqual([400, 'REQUIRED_FIELD_MISSING', 'reason']);
    expect(await returnRows(old)).toEqual([]);
    expect(await returnRows(lead)).toEqual([]);

    expect((await giveBack(lead)).status).toBe(200);
    const twice = await giveBack(lead, 'not_the_person');
    expect([twice.status, twice.body.code, twice.body.reason]).toEqual([409, 'ALREADY_RETURNED', 'Lead already returned']);

    const noKey = await call(gateway.url, 'POST', RETURNS, { body: { svc_lead_id: lead, reason: 'wrong_number' } });
    expect([noKey.status, noKey.body.code]).toEqual([401, 'AUTH_REQUIRED']);
    const affiliateKey = await giveBack(lead, 'wrong_number', affiliate.key);
    expect([affiliateKey.status, affiliateKey.body.code, affiliateKey.body.error]).toEqual([403, 'FORBIDDEN', 'key_not_permitted']);
    const schoolOnSearch = await call(gateway.url, 'GET', `/api/v1/engine/leads/${lead}`, { key: schoolKey });
    expect([schoolOnSearch.status, schoolOnSearch.body.code, schoolOnSearch.body.error]).toEqual([403, 'FORBIDDEN', 'key_not_permitted']);
    const large = await giveBack(lead, 'wrong_number', schoolKey, { note: 'x'.repeat(17 * 1024) });
    expect([large.status, large.body.code]).toEqual([413, 'MALFORMED_REQUEST']);
    const get = await call(gateway.url, 'GET', RETURNS, { key: schoolKey });
    expect([get.status, get.body.code, get.headers.get('allow')]).toEqual([405, 'MALFORMED_REQUEST', 'POST']);
  });

  it('two concurrent returns of one lead have one effect: one 200, one 409, one ledger row', async () => {
    const lead = await sold();
    const answers = await Promise.all([giveBack(lead, 'wrong_number'), giveBack(lead, 'not_the_person')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)!.body.code).toBe('ALREADY_RETURNED');
    const winner = answers.find((a) => a.status === 200)!.body.returned.reason;
    expect(await returnRows(lead)).toEqual([{ reason: winner, payout_reversal: '-12.35', price_reversal: '-40.10' }]);
  });

  it('a cap refunded by a return lets exactly one more submit through', async () => {
    const first = await sold(ids.oCap);
    const full = await affiliate.directPost(ids.campaign, ids.oCap, person(), { program_id: 'gen' });
    expect(full.body.code).toBe('CAP_REACHED');
    expect((await giveBack(first)).status).toBe(200);
    await sold(ids.oCap);
    const again = await affiliate.directPost(ids.campaign, ids.oCap, person(), { program_id: 'gen' });
    expect(again.body.code).toBe('CAP_REACHED');
  });

  it("another school's key cannot return the lead: 404, as for a lead that does not exist", async () => {
    const lead = await sold();
    const other = await giveBack(lead, 'wrong_number', otherSchoolKey);
    const none = await giveBack(randomUUID(), 'wrong_number', otherSchoolKey);
    expect([other.status, other.body]).toEqual([
      404,
      { code: 'NOT_FOUND', status: 'invalid', reason: 'Lead not found', success: false, retryable: false, field: 'svc_lead_id' },
    ]);
    expect(other.body).toEqual(none.body);
    expect(await returnRows(lead)).toEqual([]);
    expect((await giveBack(lead)).status).toBe(200);
  });

  it('PostgreSQL down: 503 UNAVAILABLE, retryable, nothing booked; the same return succeeds once it is back', async () => {
    const lead = await sold();
    await postgres.start();
    const proxied = await startApp('gateway', {
      ...env,
      DATABASE_URL: TEST_DATABASE_URL.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${postgres.port}`),
    });
    const giveBackVia = () => call(proxied.url, 'POST', RETURNS, { key: schoolKey, body: { svc_lead_id: lead, reason: 'wrong_number' } });
    await postgres.cut();
    try {
      const down = await giveBackVia();
      expect([down.status, down.body.code, down.body.retryable, down.headers.get('retry-after')]).toEqual([503, 'UNAVAILABLE', true, '1']);
      expect(down.ms).toBeLessThan(2500);
    } finally {
      await postgres.restore();
    }
    expect(await returnRows(lead)).toEqual([]);
    let back = await giveBackVia();
    for (let i = 0; back.status === 503 && i < 50; i += 1)
      back = await new Promise<HttpAnswer>((r) => setTimeout(() => r(giveBackVia()), 100));
    expect([back.status, back.body.svc_lead_id]).toEqual([200, lead]);
  });
});
