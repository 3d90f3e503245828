import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { campaign, ownOffer, partnerOffer } from '../support/catalog-builder';
import { call } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { receivedBySchool } from '../support/submit-flow';
import { testEnv, uniqueSuffix } from '../support/test-env';

const ROOT = join(__dirname, '..', '..');
const EXAMPLE = 'packages/client/examples/quick-start.ts';

/** Runs the built example (`npm run build` compiles it) with the given environment; its exit code and output. */
function runExample(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', EXAMPLE.replace(/\.ts$/, '.js'))], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The client package's quick start (packages/client/README.md shows this very
 * file) run as an affiliate would run it, against the whole running system: a
 * search whose partner offer answers a second later, so the example polls
 * (poll_after_ms) until processing_done, then a submit of the best result that
 * the sandbox school really receives.
 */
describe('the client quick start (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix);
  const ids = {
    affiliate: randomUUID(),
    school: randomUUID(),
    partnerSchool: randomUUID(),
    offer: randomUUID(),
    partner: randomUUID(),
    partnerOffer: randomUUID(),
    campaign: randomUUID(),
  };
  const schoolSlug = `quick${suffix}`;
  let sandbox: RunningApp;
  let gateway: RunningApp;
  let key: string;

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(
      {
        affiliates: [{ id: ids.affiliate, name: 'Quick start', status: 'active', dupe_check: false }],
        schools: [
          { id: ids.school, name: 'Quick Start College', logo_url: null },
          { id: ids.partnerSchool, name: 'Quick Partner College', logo_url: null },
        ],
        partners: [
          {
            id: ids.partner,
            name: 'Quick partner',
            adapter: 'sandbox',
            base_url: `${sandbox.url}/partners/${schoolSlug}?delay_ms=1000&match=all`,
            timeout_ms: 10000,
          },
        ],
        offers: [
          ownOffer(ids.offer, ids.school, 'Quick Start Nursing', `${sandbox.url}/schools/${schoolSlug}/leads?outcome=accept`, {
            priority: 10,
          }),
          partnerOffer(ids.partnerOffer, ids.partnerSchool, 'Quick partner offer', ids.partner, `quick-${ids.partnerOffer.slice(0, 8)}`, {
            priority: 1,
            result_ttl_seconds: 600,
          }),
        ],
        campaigns: [
          campaign(ids.campaign, ids.affiliate, 'Quick start', [
            { offer_id: ids.offer, payout: 20 },
            { offer_id: ids.partnerOffer, payout: 5 },
          ]),
        ],
      },
      env,
    );
    key = issueKey(ids.affiliate, env).key;
    await Promise.all([
      startApp('checks', env),
      startApp('partner-adapter', env),
      startApp('search-orchestrator', env),
      startApp('delivery', env),
    ]);
    gateway = await startApp('gateway', env);
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
  });

  it('is the file the client README shows', () => {
    const readme = readFileSync(join(ROOT, 'packages/client/README.md'), 'utf8');
    const shown = /```ts\n\/\/ packages\/client\/examples\/quick-start\.ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(shown).toBe(readFileSync(join(ROOT, EXAMPLE), 'utf8'));
  });

  it('searches, polls until every offer has answered, and submits the best result, which the school receives', async () => {
    const run = await runExample({
      LEAD_ROUTER_URL: gateway.url,
      LEAD_ROUTER_API_KEY: key,
      LEAD_ROUTER_CAMPAIGN_ID: ids.campaign,
      LEAD_ROUTER_AFFILIATE_ID: ids.affiliate,
    });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const printed = JSON.parse(run.stdout.trim().split('\n').pop()!) as {
      offers: number;
      status: number;
      code: string;
      svc_lead_id: string;
    };
    // Both offers: the partner's came only on a poll, about a second after the search answered.
    expect(printed).toEqual({ offers: 2, status: 200, code: 'ACCEPTED', svc_lead_id: expect.any(String) });

    const stored = await call(gateway.url, 'GET', `/api/v1/engine/leads/${printed.svc_lead_id}`, { key });
    expect([stored.status, stored.body.code, stored.body.disposition.offer_id]).toEqual([200, 'ACCEPTED', ids.offer]);
    expect((await receivedBySchool(sandbox.url, schoolSlug)).get(printed.svc_lead_id)).toBe(1);
  });
});
