import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { hashOf } from '../../libs/domain/src';
import { campaign, ownOffer, partnerOffer } from '../support/catalog-builder';
import { call } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey, runOps } from '../support/ops';
import { person, Person, SubmitClient } from '../support/submit-flow';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';

/**
 * Opt-outs over HTTP on the whole system (docs/opt-outs.md): the affiliate
 * intake, suppression for every affiliate whatever the phone's format,
 * revocation notices to each school and partner network that accepted the
 * person (once each, also when delivery is killed mid-send), the
 * operator's overdue list, and an affiliate's opt-out attributed to its key,
 * listed by it and reversed.
 */
describe('opt-outs (e2e)', () => {
  const suffix = uniqueSuffix();
  // A short send deadline, so a notice held by a killed delivery lapses within the test.
  const env = testEnv(suffix, { REVOCATION_SEND_TIMEOUT_MS: '2500' });
  const id = () => randomUUID();
  const ids = {
    affA: id(),
    affB: id(),
    s1: id(),
    s2: id(),
    slow: id(),
    slow2: id(),
    deaf: id(),
    pSchool: id(),
    partner: id(),
    o1: id(),
    o2: id(),
    oSlow: id(),
    oSlow2: id(),
    oDeaf: id(),
    oPartner: id(),
    campA: id(),
    campB: id(),
    campSlow: id(),
    campDeaf: id(),
  };
  const names = {
    s1: `oo-s1-${suffix}`,
    s2: `oo-s2-${suffix}`,
    slow: `oo-slow-${suffix}`,
    slow2: `oo-slow2-${suffix}`,
    deaf: `oo-deaf-${suffix}`,
    partner: `oo-p-${suffix}`,
  };
  const apps: Partial<Record<string, RunningApp>> = {};
  let a: SubmitClient;
  let b: SubmitClient;
  let keyB: { id: string; key: string };
  let db: Client;

  const schoolUrl = (name: string, query = 'outcome=accept') => `${apps.sandbox!.url}/schools/${name}/leads?${query}`;
  const revocationsOf = async (kind: 'schools' | 'partners', name: string) =>
    (
      (await (await fetch(`${apps.sandbox!.url}/${kind}/${name}/revocations`)).json()) as {
        revocations: Array<{ notice_id: string; lead_id: string; deliveries: number; acknowledged: boolean }>;
      }
    ).revocations;

  async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Searches on `campaignId` and submits every result shown; answers the accepted lead ids by offer. */
  async function sellToEveryResult(client: SubmitClient, campaignId: string, who: Person): Promise<Map<string, string>> {
    const { searchId, results } = await client.searchDone(campaignId, who);
    const sold = new Map<string, string>();
    for (const [offerId, r] of results) {
      const answers = Object.fromEntries(
        (r.form_fields as Array<{ name: string; options?: Array<{ value: string }> }>).map((f) => [f.name, f.options?.[0]?.value ?? 'yes']),
      );
      const res = await client.submit(campaignId, searchId, r.svc_result_id, {
        ...(r.programs[0] ? { program_id: r.programs[0].value } : {}),
        ...answers,
      });
      expect({ offerId, code: res.body.code }).toEqual({ offerId, code: 'ACCEPTED' });
      sold.set(offerId, res.body.svc_lead_id);
    }
    return sold;
  }

  const optOutApi = (client: SubmitClient, body: unknown) =>
    call(apps.gateway!.url, 'POST', '/api/v1/engine/opt-outs', { key: client.key, body });

  beforeAll(async () => {
    apps.sandbox = await startApp('sandbox', env, 'live');
    const partnerBase = `${apps.sandbox.url}/partners/${names.partner}?match=all&outcome=accept`;
    applyCatalog(
      {
        affiliates: [
          { id: ids.affA, name: 'Opt-out A', status: 'active', dupe_check: false },
          { id: ids.affB, name: 'Opt-out B', status: 'active', dupe_check: false },
        ],
        schools: [ids.s1, ids.s2, ids.slow, ids.slow2, ids.deaf, ids.pSchool].map((sid, i) => ({
          id: sid,
          name: `Opt-out School ${i} ${suffix}`,
          logo_url: null,
        })),
        partners: [{ id: ids.partner, name: names.partner, adapter: 'sandbox', base_url: partnerBase, timeout_ms: 4000 }],
        offers: [
          ownOffer(ids.o1, ids.s1, 'Offer one', schoolUrl(names.s1)),
          ownOffer(ids.o2, ids.s2, 'Offer two', schoolUrl(names.s2)),
          // Their schools answer leads and notices 1.5 s late: delivery is killed while the notices are on their way.
          ownOffer(ids.oSlow, ids.slow, 'Slow offer', {
            adapter: 'sandbox',
            url: schoolUrl(names.slow, 'outcome=accept&delay_ms=1500'),
            timeout_ms: 4000,
          }),
          ownOffer(ids.oSlow2, ids.slow2, 'Slow offer two', {
            adapter: 'sandbox',
            url: schoolUrl(names.slow2, 'outcome=accept&delay_ms=1500'),
            timeout_ms: 4000,
          }),
          ownOffer(ids.oDeaf, ids.deaf, 'Deaf offer', schoolUrl(names.deaf, 'outcome=accept&revocation=ignore')),
          partnerOffer(ids.oPartner, ids.pSchool, 'Partner offer', ids.partner, `ext-${suffix}`, { result_ttl_seconds: 900 }),
        ],
        campaigns: [
          campaign(ids.campA, ids.affA, 'A', [
            { offer_id: ids.o1, payout: 20 },
            { offer_id: ids.o2, payout: 15 },
            { offer_id: ids.oPartner, payout: 10 },
          ]),
          campaign(ids.campB, ids.affB, 'B', [
            { offer_id: ids.o1, payout: 18 },
            { offer_id: ids.o2, payout: 12 },
          ]),
          campaign(ids.campSlow, ids.affA, 'Slow', [
            { offer_id: ids.oSlow, payout: 5 },
            { offer_id: ids.oSlow2, payout: 4 },
          ]),
          campaign(ids.campDeaf, ids.affB, 'Deaf', [{ offer_id: ids.oDeaf, payout: 5 }]),
        ],
      },
      env,
    );
    for (const app of ['checks', 'partner-adapter', 'search-orchestrator', 'delivery'] as const) apps[app] = await startApp(app, env);
    apps.gateway = await startApp('gateway', env);
    a = new SubmitClient(apps.gateway.url, issueKey(ids.affA, env).key, ids.affA);
    keyB = issueKey(ids.affB, env);
    b = new SubmitClient(apps.gateway.url, keyB.key, ids.affB);
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await stopAppsAndTopology(env);
  });

  it('an opt-out by hashed phone suppresses a person whose search used another format of the phone, for every affiliate, and each school and partner that accepted them gets exactly one notice', async () => {
    const ada = person();
    const sold = await sellToEveryResult(a, ids.campA, ada);
    expect([...sold.keys()].sort()).toEqual([ids.o1, ids.o2, ids.oPartner].sort());

    // Another affiliate's request, by the hash of the normalized phone only.
    const res = await optOutApi(b, { hashed: { phone: hashOf('phone', ada.personal.phone) } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 'OK',
      status: 'accepted',
      reason: 'OK',
      success: true,
      retryable: false,
      opt_out_id: expect.any(String),
    });

    const p = ada.personal.phone;
    const reformatted = { ...ada, personal: { ...ada.personal, phone: `+1 (${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}` } };
    for (const [client, campaign] of [
      [a, ids.campA],
      [b, ids.campB],
    ] as const) {
      const search = await client.searchDone(campaign, reformatted);
      expect({ campaign, offers: search.body.offers, done: search.body.processing_done }).toEqual({ campaign, offers: [], done: true });
      // Not processed: stored without contact data, its decisions saying why.
      const row = (await db.query(`SELECT lead, consumer_ip, offer_decisions FROM searches WHERE id = $1`, [search.searchId])).rows[0];
      expect([row.lead.personal, row.consumer_ip]).toEqual([undefined, '']);
      expect(Object.values(row.offer_decisions).map((d: any) => d.reason)).toEqual(expect.arrayContaining(['opted_out'])); // eslint-disable-line @typescript-eslint/no-explicit-any -- a stored jsonb column of any shape; the test reads the field it asserts on.
    }
    const direct = await b.directPost(ids.campB, ids.o1, reformatted);
    expect(direct.body).toMatchObject({ code: 'NOT_ELIGIBLE', status: 'rejected', reason: 'Not eligible' });

    for (const [kind, name, offerId] of [
      ['schools', names.s1, ids.o1],
      ['schools', names.s2, ids.o2],
      ['partners', names.partner, ids.oPartner],
    ] as const) {
      const notices = await until(`a notice at ${name}`, async () => {
        const n = await revocationsOf(kind, name);
        return n.some((x) => x.acknowledged) ? n : undefined;
      });
      expect(notices.map((n) => n.lead_id)).toEqual([sold.get(offerId)]);
    }
    const stored = await db.query(
      'SELECT buyer_kind, acknowledged_at IS NOT NULL AS acknowledged FROM revocation_notices WHERE lead_id = ANY($1::uuid[])',
      [[...sold.values()]],
    );
    expect(stored.rows.map((r) => `${r.buyer_kind}:${r.acknowledged}`).sort()).toEqual(['partner:true', 'school:true', 'school:true']);
  });

  it('a person sold to two schools: notices on their way when delivery is killed reach each school once, after the restart', async () => {
    const bo = person();
    const sold = await sellToEveryResult(a, ids.campSlow, bo);
    const leads = [sold.get(ids.oSlow)!, sold.get(ids.oSlow2)!];
    expect((await optOutApi(a, { email: bo.personal.email })).status).toBe(200);

    // The schools answer 1.5 s late: kill delivery while a notice's call is under way.
    await until('a notice being sent', async () =>
      (await db.query('SELECT max(attempts) AS n FROM revocation_notices WHERE lead_id = ANY($1::uuid[])', [leads])).rows[0]?.n >= 1
        ? true
        : undefined,
    );
    await apps.delivery!.kill();
    apps.delivery = await startApp('delivery', env);

    const rows = await until(
      'both notices acknowledged',
      async () => {
        const r = (
          await db.query('SELECT lead_id, attempts, acknowledged_at FROM revocation_notices WHERE lead_id = ANY($1::uuid[])', [leads])
        ).rows;
        return r.length === 2 && r.every((x) => x.acknowledged_at) ? r : undefined;
      },
      30_000,
    );
    // The kill cut a send: that notice was claimed again after the restart.
    expect(Math.max(...rows.map((r) => r.attempts))).toBeGreaterThanOrEqual(2);
    for (const [name, leadId] of [
      [names.slow, leads[0]],
      [names.slow2, leads[1]],
    ] as const) {
      const notices = await revocationsOf('schools', name);
      expect({ name, leads: notices.map((n) => n.lead_id), acknowledged: notices.map((n) => n.acknowledged) }).toEqual({
        name,
        leads: [leadId],
        acknowledged: [true],
      });
    }
  });

  it('the overdue list shows a notice whose buyer never acknowledges', async () => {
    const cy = person();
    const sold = await sellToEveryResult(b, ids.campDeaf, cy);
    const added = runOps(
      ['optout', 'add', '--phone', cy.personal.phone, '--received-at', '2026-10-01T09:00:00Z', '--reference', 'letter 42', '--json'],
      env,
    );
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ notices: 1, due_at: '2026-10-15T09:00:00.000Z' });
    const overdue = await until('the overdue list to show the refused notice', async () => {
      const status = runOps(['optout', 'status', '--overdue', '--json'], env);
      expect(status.code).toBe(0);
      const n = (JSON.parse(status.stdout) as Array<Record<string, unknown>>).find((x) => x.lead_id === sold.get(ids.oDeaf));
      return n?.last_error === 'HTTP 503' ? n : undefined;
    });
    expect(overdue).toMatchObject({ buyer_kind: 'school', buyer_id: ids.deaf, overdue: true, due_at: '2026-10-15T09:00:00.000Z' });
    expect(overdue.attempts).toBeGreaterThanOrEqual(1);
    expect((await revocationsOf('schools', names.deaf)).length).toBe(1);
    expect((await revocationsOf('schools', names.deaf)).every((n) => !n.acknowledged)).toBe(true);
  });

  it("an affiliate's opt-out is attributed to its key: optout list --key shows it; optout reverse with a reason lifts the suppression (the person is sold again) and is audited", async () => {
    const dee = person();
    const res = await optOutApi(b, { email: dee.personal.email });
    expect(res.status).toBe(200);
    const optOutId = res.body.opt_out_id as string;
    expect((await a.searchDone(ids.campA, dee)).body.offers).toEqual([]);

    const listed = runOps(['optout', 'list', '--key', keyB.id, '--json'], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({
        opt_out_id: optOutId,
        api_key_id: keyB.id,
        affiliate_id: ids.affB,
        source: 'affiliate',
        keys: ['email'],
        reversal: null,
      }),
    );

    const reversed = runOps(['optout', 'reverse', optOutId, '--reason', 'TICKET-9: not the consumer', '--by', 'e2e', '--json'], env);
    expect(reversed.code).toBe(0);
    expect(JSON.parse(reversed.stdout)).toMatchObject({ reversed: [optOutId], refused: [], keys_lifted: 1, keys_kept: 0 });

    const sold = await sellToEveryResult(a, ids.campA, dee);
    expect([...sold.keys()].sort()).toEqual([ids.o1, ids.o2, ids.oPartner].sort());
    const audit = await db.query('SELECT action, actor, reason FROM suppression_audit WHERE opt_out_id = $1 ORDER BY id', [optOutId]);
    expect(audit.rows).toEqual([
      { action: 'suppress', actor: `affiliate:${ids.affB}`, reason: null },
      { action: 'lift', actor: 'operator:e2e', reason: 'TICKET-9: not the consumer' },
    ]);
    const after = JSON.parse(runOps(['optout', 'list', '--key', keyB.id, '--json'], env).stdout) as Array<Record<string, unknown>>;
    expect(after.find((o) => o.opt_out_id === optOutId)).toMatchObject({
      keys_held: 0,
      reversal: { by: 'operator:e2e', reason: 'TICKET-9: not the consumer' },
    });
    // Again: nothing changes, and it is not an error.
    const again = runOps(['optout', 'reverse', optOutId, '--reason', 'twice', '--json'], env);
    expect([again.code, JSON.parse(again.stdout).refused]).toEqual([0, [{ id: optOutId, why: 'already_reversed' }]]);
  });
});
