import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { AppName } from '../../libs/config/src';
import { campaign, ownOffer, partnerOffer } from '../support/catalog-builder';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { expressionsOf, readDashboard, substitute } from '../support/grafana-dashboard';
import { call } from '../support/http';
import { applyCatalog, issueKey } from '../support/ops';
import { RunningPrometheus, instantQuery, startPrometheus } from '../support/prometheus-process';
import { ROOT, RULES_FILE, alertingRules, comparisonsOf, recordingRules, ruleGroups } from '../support/prometheus-rules';
import { testEnv, uniqueSuffix } from '../support/test-env';

/**
 * The dashboard's and the alerts' queries against the real system: every app
 * runs on loopback, Debian's Prometheus scrapes them every second (job
 * lead-router, as in Compose and Kubernetes) and evaluates the rules file
 * every second, and a little traffic (a search with a partner, polls, a
 * submit, an opt-out, a poll of an unknown search) makes the series exist. Then, through
 * the HTTP API:
 *  - every panel query of the dashboard (Grafana's variables substituted:
 *    $__rate_interval = 1m, $app = All) returns at least one series;
 *  - every recording rule's expression returns at least one series, and so
 *    does the series it records;
 *  - every alert's expression is evaluated (it parses and evaluates; normally
 *    it is empty, nothing being wrong), and each series it compares with a
 *    number (its probe: the alert's shape is checked in
 *    test/unit/prometheus-rules.spec.ts) returns at least one series: no alert
 *    compares something the system does not export;
 *  - Prometheus evaluates every rule without error.
 */

const DASHBOARD_VARIABLES = { __rate_interval: '1m', __interval: '15s', __range: '1h', app: '.*' };
const APPS: AppName[] = ['sandbox', 'checks', 'partner-adapter', 'search-orchestrator', 'delivery', 'gateway'];

const groups = ruleGroups();
const dashboard = expressionsOf(readDashboard()).map(({ name, expr }) => [name, substitute(expr, DASHBOARD_VARIABLES)] as const);
const records = recordingRules(groups);
const alerts = alertingRules(groups);

describe('Prometheus queries of the dashboard and the alert rules (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix);
  const ids = {
    aff: randomUUID(),
    school: randomUUID(),
    partnerSchool: randomUUID(),
    offer: randomUUID(),
    partner: randomUUID(),
    pOffer: randomUUID(),
    campaign: randomUUID(),
  };
  const partnerName = `prom-partner-${suffix}`;
  const apps: Partial<Record<AppName, RunningApp>> = {};
  let prometheus: RunningPrometheus | undefined;

  /** Waits until `probe` holds; the last reason it did not is in the error. */
  async function until(what: string, probe: () => Promise<string | true>, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const r = await probe().catch((e: Error) => e.message);
      if (r === true) return;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${r}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function traffic(): Promise<void> {
    const key = issueKey(ids.aff, env, ['--limit', 'search=600/100', '--limit', 'results=600/100', '--limit', 'leads=600/100']).key;
    const gw = apps.gateway!.url;
    const search = await call(gw, 'POST', '/api/v1/engine/search', {
      key,
      body: {
        svc_campaign_id: ids.campaign,
        svc_affiliate_id: ids.aff,
        lead: {
          personal: {
            first_name: 'Prom',
            last_name: `Etheus${suffix}`,
            email: `prom.${suffix}@example.com`,
            phone: '5125550142',
            date_of_birth: '1994-03-09',
          },
          address: { address_line_1: '1 Scrape Way', city: 'Austin', state: 'TX', zip_code: '78701' },
          education: { education_level: 'associate', high_school_graduation_year: '2012' },
        },
        tracking: { ip_address: '73.12.44.10', subid: 'prom' },
      },
    });
    expect(search.status).toBe(200);
    const searchId = search.body.svc_lead_id as string;
    let body = search.body;
    for (let i = 0; !body.processing_done && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 150));
      body = (await call(gw, 'GET', `/api/v1/engine/results/${searchId}`, { key })).body;
    }
    expect(body.processing_done).toBe(true);
    type Entry = {
      svc_result_id: string;
      offer: { id: string };
      programs: Array<{ value: string }>;
      form_fields: Array<{ name: string; options?: Array<{ value: string }> }>;
    };
    const entries = body.offers as Entry[];
    expect(entries.map((e) => e.offer.id).sort()).toEqual([ids.offer, ids.pOffer].sort());
    const entry = entries.find((e) => e.offer.id === ids.offer)!;
    const submit = await call(gw, 'POST', '/api/v1/engine/leads', {
      key,
      body: {
        svc_campaign_id: ids.campaign,
        svc_affiliate_id: ids.aff,
        svc_result_id: entry.svc_result_id,
        search_lead_id: searchId,
        tcpa_consent: true,
        ...(entry.programs[0] ? { program_id: entry.programs[0].value } : {}),
        ...Object.fromEntries(entry.form_fields.map((f) => [f.name, f.options?.[0]?.value ?? 'yes'])),
      },
    });
    expect(submit.body.code).toBe('ACCEPTED');
    // An opt-out (gateway_opt_outs_total, per key): of someone else, so the search above keeps its person.
    expect((await call(gw, 'POST', '/api/v1/engine/opt-outs', { key, body: { email: `prom.optout.${suffix}@example.com` } })).status).toBe(
      200,
    );
    // An error answer (gateway_error_answers_total): a poll of a search that does not exist.
    expect((await call(gw, 'GET', `/api/v1/engine/results/${randomUUID()}`, { key })).status).toBe(404);
  }

  beforeAll(async () => {
    apps.sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'Prometheus affiliate', status: 'active', dupe_check: false }],
        schools: [
          { id: ids.school, name: `Prom School ${suffix}`, logo_url: null },
          { id: ids.partnerSchool, name: `Prom Partner School ${suffix}`, logo_url: null },
        ],
        partners: [
          {
            id: ids.partner,
            name: partnerName,
            adapter: 'sandbox',
            base_url: `${apps.sandbox.url}/partners/${partnerName}?match=all&outcome=accept`,
            timeout_ms: 4000,
          },
        ],
        offers: [
          ownOffer(ids.offer, ids.school, 'Scraped', `${apps.sandbox.url}/schools/prom-${suffix}/leads?outcome=accept`),
          partnerOffer(ids.pOffer, ids.partnerSchool, 'Partner offer', ids.partner, `ext-${suffix}`, { result_ttl_seconds: 900 }),
        ],
        campaigns: [
          campaign(ids.campaign, ids.aff, 'Prom', [
            { offer_id: ids.offer, payout: 20 },
            { offer_id: ids.pOffer, payout: 10 },
          ]),
        ],
      },
      env,
    );
    const workers = await Promise.all(
      (['checks', 'partner-adapter', 'search-orchestrator', 'delivery'] as const).map((a) => startApp(a, env)),
    );
    for (const w of workers) apps[w.app] = w;
    apps.gateway = await startApp('gateway', env);

    prometheus = await startPrometheus(
      APPS.map((a) => new URL(apps[a]!.managementUrl).host),
      [join(ROOT, RULES_FILE)],
    );
    await until('every app target to be up', async () => {
      const up = await instantQuery(prometheus!.url, 'up{job="lead-router"} == 1');
      return up.length === APPS.length || `${up.length} of ${APPS.length} up`;
    });
    // The traffic after the first scrapes, so the counters' rates see it.
    await traffic();
    const trafficDone = Date.now();
    // A rate needs two samples taken after the traffic: every target scraped at least twice since.
    await until('every app scraped twice since the traffic', async () => {
      const since = await instantQuery(prometheus!.url, `count_over_time(up{job="lead-router"}[${Date.now() - trafficDone}ms]) >= 2`);
      return since.length === APPS.length || `${since.length} of ${APPS.length} scraped twice`;
    });
    await until('the submit and the partner call to be scraped, and every recording rule evaluated on them', async () => {
      for (const q of [
        'gateway_submits_total{code="ACCEPTED"}',
        'partner_calls_total',
        'gateway_error_answers_total',
        ...records.map((r) => r.record),
      ]) {
        if ((await instantQuery(prometheus!.url, q)).length === 0) return `${q}: no series yet`;
      }
      return true;
    });
  }, 120_000);

  afterAll(async () => {
    await prometheus?.stop();
    await stopAppsAndTopology(env);
  });

  it('scrapes every app', async () => {
    const targets = await instantQuery(prometheus!.url, 'up{job="lead-router"}');
    expect(targets.map((t) => t.value[1])).toEqual(APPS.map(() => '1'));
  });

  it.each(dashboard)('dashboard: %s returns a series', async (_name, expr) => {
    expect({ expr, series: (await instantQuery(prometheus!.url, expr)).length > 0 }).toEqual({ expr, series: true });
  });

  it.each(records.map((r) => [r.record, r.expr] as const))(
    'record %s: its expression and the recorded series return a series',
    async (record, expr) => {
      expect({ expr, series: (await instantQuery(prometheus!.url, expr)).length > 0 }).toEqual({ expr, series: true });
      expect({ record, series: (await instantQuery(prometheus!.url, record)).length > 0 }).toEqual({ record, series: true });
    },
  );

  it.each(alerts.map((a) => [a.alert, a.expr] as const))(
    'alert %s: its expression evaluates, and every series it compares exists',
    async (_alert, expr) => {
      await instantQuery(prometheus!.url, expr); // throws on a parse or evaluation error
      for (const { series } of comparisonsOf(expr)!) {
        expect({ series, found: (await instantQuery(prometheus!.url, series)).length > 0 }).toEqual({ series, found: true });
      }
    },
  );

  it('evaluates every rule without error', async () => {
    const res = (await (await fetch(`${prometheus!.url}/api/v1/rules`)).json()) as {
      data: { groups: Array<{ name: string; rules: Array<{ name: string; health: string; lastError?: string }> }> };
    };
    const rules = res.data.groups.flatMap((g) => g.rules);
    expect(rules.length).toBe(records.length + alerts.length);
    expect(rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.health} ${r.lastError ?? ''}`)).toEqual([]);
  });
});
