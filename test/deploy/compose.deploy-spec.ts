import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answersFor } from '../../bench/support/chaos/chaos-driver';
import { ownOffer } from '../support/catalog-builder';
import { call } from '../support/http';
import { receivedBySchool, SubmitClient, person } from '../support/submit-flow';
import { uniqueSuffix } from '../support/test-env';
import { freePort } from '../support/app-process';
import { ComposeProject, hostCaBundle, must, ROOT, sumSamples } from './compose';
import { packAndInstallClient, runPackedExample } from './packed-client';
import { Flow, runFlows, searchAndSubmit, settle } from './traffic';

/**
 * The repository's Dockerfile and docker-compose.yml, run unchanged on a real
 * Docker engine (test/deploy/run.sh starts it and makes the base images the
 * files name): the image built, the stack up and healthy, the affiliate API
 * answered through the composed gateway (and by the packed client), a worker
 * killed in the middle of traffic coming back with nothing lost, checks and
 * delivery at three replicas each deciding 300 submits exactly once, and a
 * tear-down that leaves nothing behind. Each step prints its figures.
 */
const suffix = uniqueSuffix();
/** demo/catalog.json's "Northfield Online Nursing" (own) and "Partner: Lakeshore Technical College Online" (the sandbox partner network's). */
const DEMO_OWN_OFFER = '2acdeec0-71db-41d7-9110-dc6e52b7788f';
const DEMO_PARTNER_OFFER = '2b2baa2f-36fa-49cd-acb3-625e22da2dbf';
const figures: Record<string, unknown> = {};
const log = (line: string) => process.stdout.write(`deploy: ${line}\n`);
const since = (t: number | undefined) => Math.round((Date.now() - (t ?? Date.now())) / 100) / 10;

describe('docker compose (deploy)', () => {
  let project: ComposeProject;
  let gatewayUrl: string;
  let sandboxUrl: string;
  let work: string;
  const image = `lead-router:deploy-${suffix}`;
  const ids = { affiliate: randomUUID(), school: randomUUID(), offer: randomUUID(), campaign: randomUUID() };
  const schoolSlug = `deploy${suffix}`;
  let client: SubmitClient;

  beforeAll(async () => {
    const [gatewayPort, sandboxPort] = [await freePort(), await freePort()];
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
    const ca = hostCaBundle();
    project = new ComposeProject(`lr-deploy-${suffix}`, {
      LEAD_ROUTER_IMAGE: image,
      PUBLISH_ADDRESS: '127.0.0.1',
      GATEWAY_PUBLISHED_PORT: String(gatewayPort),
      SANDBOX_PUBLISHED_PORT: String(sandboxPort),
      ...(ca ? { BUILD_CA_BUNDLE: ca } : {}),
    });
    work = mkdtempSync(join(tmpdir(), 'lr-deploy-'));
    // The ops CLI in the image runs as user node: it must read the catalog file mounted from here.
    chmodSync(work, 0o755);
    const t = Date.now();
    log(`docker compose -p ${project.name} up --build --wait (gateway ${gatewayUrl}, sandbox ${sandboxUrl})`);
    await project.mustCompose(['up', '--build', '--wait', '--quiet-pull'], { timeoutMs: 15 * 60_000 });
    figures.upSeconds = since(t);
    log(`stack up and healthy in ${figures.upSeconds} s`);
  }, 16 * 60_000);

  afterAll(async () => {
    if (!project) return;
    // A failed test still tears the project down; the last test checks a clean tear-down on its own.
    await project.compose(['down', '-v', '--remove-orphans', '--timeout', '20'], { timeoutMs: 180_000 });
    await project.docker(['image', 'rm', '-f', image]).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
    log(`figures ${JSON.stringify(figures)}`);
  }, 240_000);

  it('builds the image from the Dockerfile, on Node.js 24, without the build CA in it', async () => {
    const created = new Date((await project.docker(['image', 'inspect', '-f', '{{.Created}}', image])).trim());
    expect(Date.now() - created.getTime()).toBeLessThan(60 * 60_000);
    expect((await project.docker(['run', '--rm', '--entrypoint', 'node', image, '-v'])).trim()).toMatch(/^v24\./);
    const env = await project.docker(['image', 'inspect', '-f', '{{json .Config.Env}}', image]);
    expect(env).not.toContain('NODE_EXTRA_CA_CERTS');
    expect((await project.docker(['run', '--rm', '--entrypoint', 'sh', image, '-c', 'ls /run/secrets 2>/dev/null | wc -l'])).trim()).toBe(
      '0',
    );
    expect((await project.docker(['run', '--rm', '--entrypoint', 'id', image, '-un'])).trim()).toBe('node');
  });

  it('runs every service healthy, and the one-shot jobs completed', async () => {
    for (const service of [
      'postgres',
      'redis',
      'rabbitmq',
      'sandbox',
      'search-orchestrator',
      'partner-adapter',
      'checks',
      'delivery',
      'gateway',
    ]) {
      const [c] = await project.containers(service);
      expect({ service, ...(await project.inspect(c)) }).toMatchObject({ service, status: 'running', health: 'healthy' });
    }
    expect((await project.inspect((await project.containers('retention'))[0])).status).toBe('running');
    for (const job of ['migrate', 'demo-catalog']) {
      const [c] = await project.containers(job);
      expect({ job, ...(await project.inspect(c)) }).toMatchObject({ job, status: 'exited', exitCode: 0 });
    }
    // Readiness on the gateway's management port, inside the Compose network; the published API port answers no probe.
    expect(await project.ready((await project.containers('gateway'))[0], 9000)).toBe(true);
    expect((await call(gatewayUrl, 'GET', '/health/ready')).status).toBe(404);
  });

  it('answers a search, its polls and a submit through the composed gateway, on the demo catalog', async () => {
    const demo = JSON.parse(readFileSync(join(ROOT, 'demo', 'catalog.json'), 'utf8')) as {
      affiliates: Array<{ id: string }>;
      campaigns: Array<{ id: string }>;
    };
    const issued = JSON.parse(await project.ops(['keys', 'issue', '--affiliate', demo.affiliates[0].id])) as { key: string };
    const demoClient = new SubmitClient(gatewayUrl, issued.key, demo.affiliates[0].id);
    const lead = {
      ...person(),
      education: {
        education_level: 'associate',
        high_school_graduation_year: '2013',
        start_timeline: 'immediately',
        learning_preference: 'online',
      },
      background: { military_affiliation: 'none', us_citizen: 'yes' },
    };
    const found = await demoClient.searchDone(demo.campaigns[0].id, lead as ReturnType<typeof person>);
    expect(found.body.processing_done).toBe(true);
    expect(found.results.size).toBeGreaterThan(0);
    // The sandbox partner network answers after 2 s: its offer came through the polls.
    expect(found.results.has(DEMO_PARTNER_OFFER)).toBe(true);
    const own = found.results.get(DEMO_OWN_OFFER);
    expect(own).toBeDefined();
    const submitted = await demoClient.submit(demo.campaigns[0].id, found.searchId, own.svc_result_id, answersFor(own));
    expect([200, 202]).toContain(submitted.status);
    const final = await demoClient.finalStatus(submitted.body.svc_lead_id, 30_000);
    expect(final.status).toBe(200);
    expect(final.body.code).toBe('ACCEPTED');
    // A key issued by a one-off ops container, a search that waits for the partner's 2 s, a submit and its status.
  }, 60_000);

  it(
    'installs the packed client into a fresh project, type-checks its example and runs it against the stack',
    async () => {
      const catalogFile = join(work, 'catalog.json');
      writeFileSync(
        catalogFile,
        JSON.stringify({
          affiliates: [{ id: ids.affiliate, name: `Deploy ${suffix}`, status: 'active', dupe_check: false }],
          schools: [{ id: ids.school, name: `Deploy College ${suffix}`, logo_url: null }],
          partners: [],
          offers: [
            ownOffer(ids.offer, ids.school, `Deploy Nursing ${suffix}`, `http://sandbox:4100/schools/${schoolSlug}/leads?outcome=accept`, {
              priority: 10,
            }),
          ],
          campaigns: [
            {
              id: ids.campaign,
              affiliate_id: ids.affiliate,
              name: `Deploy ${suffix}`,
              status: 'active',
              offers: [{ offer_id: ids.offer, payout: 20 }],
            },
          ],
        }),
      );
      chmodSync(catalogFile, 0o644);
      await project.ops(['catalog', 'apply', '/tmp/deploy-catalog.json'], [`${catalogFile}:/tmp/deploy-catalog.json:ro`]);
      const issued = JSON.parse(
        await project.ops([
          'keys',
          'issue',
          '--affiliate',
          ids.affiliate,
          '--limit',
          'search=100000/1000',
          '--limit',
          'results=100000/1000',
          '--limit',
          'leads=100000/1000',
        ]),
      ) as { key: string };
      client = new SubmitClient(gatewayUrl, issued.key, ids.affiliate);

      const t = Date.now();
      const { projectDir } = await packAndInstallClient(work);
      figures.clientPackInstallTypecheckSeconds = since(t);
      const printed = await runPackedExample(projectDir, {
        LEAD_ROUTER_URL: gatewayUrl,
        LEAD_ROUTER_API_KEY: issued.key,
        LEAD_ROUTER_CAMPAIGN_ID: ids.campaign,
        LEAD_ROUTER_AFFILIATE_ID: ids.affiliate,
      });
      log(`packed client example printed ${JSON.stringify(printed)}`);
      expect(printed).toMatchObject({ offers: 1, status: 200, code: 'ACCEPTED' });
      expect(printed.svc_lead_id).toEqual(expect.any(String));
      expect((await receivedBySchool(sandboxUrl, schoolSlug)).get(printed.svc_lead_id!)).toBe(1);
    },
    5 * 60_000,
  );

  /** Every flow decided once: a lead id, a final decision, one stored lead per result, one receipt at the school per lead. */
  async function audit(flows: Flow[]) {
    await settle(client, flows);
    const resultIds = flows.map((f) => f.resultId).filter((r): r is string => !!r);
    const stored = await project.sql(
      `SELECT result_id, count(*) FROM leads WHERE campaign_id = '${ids.campaign}' AND result_id IN (${resultIds.map((r) => `'${r}'`).join(',') || 'NULL'}) GROUP BY result_id`,
    );
    const storedByResult = new Map(stored.map((row) => row.split('|')).map(([r, n]) => [r, Number(n)]));
    const receipts = await receivedBySchool(sandboxUrl, schoolSlug);
    const lost = flows.filter(
      (f) => !f.leadId || f.finalCode !== 'ACCEPTED' || storedByResult.get(f.resultId!) !== 1 || receipts.get(f.leadId) !== 1,
    );
    const doubled =
      [...storedByResult.values()].filter((n) => n > 1).length + flows.filter((f) => f.leadId && (receipts.get(f.leadId) ?? 0) > 1).length;
    const firstAnswers: Record<string, number> = {};
    for (const f of flows) firstAnswers[String(f.firstStatus ?? 'none')] = (firstAnswers[String(f.firstStatus ?? 'none')] ?? 0) + 1;
    return {
      flows: flows.length,
      lost: lost.length,
      doubled,
      firstAnswers,
      retried: flows.filter((f) => f.tries > 1).length,
      examples: lost.slice(0, 3),
    };
  }

  it(
    'comes back from workers killed in the middle of traffic with nothing lost',
    async () => {
      const [checks] = await project.containers('checks');
      const [delivery] = await project.containers('delivery');
      const before = { [checks]: (await project.inspect(checks)).restarts, [delivery]: (await project.inspect(delivery)).restarts };
      const t = Date.now();
      let done = 0;
      let struckAt: number | undefined;
      let backAt: number | undefined;
      let doneWhenBack = 0;
      /** When checks was killed, and when its restarted process first answered ready (it may consume a little before). */
      const checksDown: { from?: number; to?: number } = {};
      // Traffic runs before the strike, through the outage and until 40 more consumers have been served after both are back.
      const traffic = runFlows(
        () => Date.now() - t < 180_000 && (backAt === undefined || done < doneWhenBack + 40),
        8,
        () => searchAndSubmit(client, ids.campaign, ids.offer),
        () => (done += 1),
      );
      const ports: Record<string, number> = { [checks]: 3003, [delivery]: 3004 };
      const faults = (async () => {
        while (done < 20) await new Promise((r) => setTimeout(r, 50));
        // SIGKILL to each app's process from the host, as a crash or the OOM killer would: no drain, nothing acked after it.
        for (const c of [checks, delivery]) {
          const pid = (await project.inspect(c)).pid;
          log(`SIGKILL to ${c} (host pid ${pid}) after ${since(t)} s and ${done} consumers`);
          await must('kill', ['-KILL', String(pid)]);
          if (c === checks) checksDown.from = Date.now();
          struckAt ??= Date.now();
          await new Promise((r) => setTimeout(r, 1_500));
        }
        // Both come back on their own (restart: unless-stopped) and answer ready again.
        for (const c of [checks, delivery]) {
          for (;;) {
            const s = await project.inspect(c);
            if (s.status === 'running' && s.restarts > before[c] && (await project.ready(c, ports[c]))) break;
            if (Date.now() - t > 150_000) throw new Error(`${c} did not come back ready: ${JSON.stringify(s)}`);
            await new Promise((r) => setTimeout(r, 200));
          }
          if (c === checks) checksDown.to = Date.now();
        }
        backAt = Date.now();
        doneWhenBack = done;
        log(`both back and ready ${since(struckAt)} s after the first SIGKILL`);
      })();
      await faults;
      const flows = await traffic;
      const result = await audit(flows);
      // Submits sent between the SIGKILL and the restarted checks answering ready: the outage really met traffic.
      const sentBeforeChecksReady = flows.filter(
        (f) => f.submitStart !== undefined && f.submitStart >= checksDown.from! && f.submitStart <= checksDown.to!,
      ).length;
      const restarted = await Promise.all([checks, delivery].map(async (c) => (await project.inspect(c)).restarts - before[c]));
      figures.killedWorkers = {
        seconds: since(t),
        killedToReadySeconds: Math.round((checksDown.to! - checksDown.from!) / 100) / 10,
        sentBeforeChecksReady,
        restarted,
        slowestSubmitMs: Math.max(...flows.map((f) => (f.submitEnd ?? 0) - (f.submitStart ?? 0))),
        ...result,
        examples: undefined,
      };
      log(`killed workers: ${JSON.stringify(figures.killedWorkers)}`);
      expect(result.examples).toEqual([]);
      expect(result).toMatchObject({ lost: 0, doubled: 0 });
      expect(sentBeforeChecksReady).toBeGreaterThan(0);
      expect(restarted).toEqual([1, 1]);
      expect(result.flows).toBeGreaterThanOrEqual(60);
    },
    6 * 60_000,
  );

  it(
    'decides 300 submits with checks and delivery at three replicas each, none lost or doubled, spread over the replicas',
    async () => {
      const t0 = Date.now();
      await project.mustCompose(['up', '-d', '--wait', '--no-deps', '--scale', 'checks=3', '--scale', 'delivery=3', 'checks', 'delivery'], {
        timeoutMs: 5 * 60_000,
      });
      figures.scaleUpSeconds = since(t0);
      const replicas = { checks: await project.containers('checks'), delivery: await project.containers('delivery') };
      expect(replicas.checks).toHaveLength(3);
      expect(replicas.delivery).toHaveLength(3);
      const handled = async () => ({
        checks: await Promise.all(
          replicas.checks.map(async (c) =>
            sumSamples(await project.metrics(c, 3003), 'messaging_handler_duration_seconds_count', {
              type: /^submit\.requested/,
              outcome: /^ack$/,
            }),
          ),
        ),
        delivery: await Promise.all(
          replicas.delivery.map(async (c) => sumSamples(await project.metrics(c, 3004), 'delivery_submits_total')),
        ),
      });
      const before = await handled();
      const t = Date.now();
      const flows = await runFlows(
        (started) => started < 300,
        12,
        () => searchAndSubmit(client, ids.campaign, ids.offer),
      );
      const seconds = since(t);
      const result = await audit(flows);
      const after = await handled();
      const spread = {
        checks: after.checks.map((n, i) => n - before.checks[i]),
        delivery: after.delivery.map((n, i) => n - before.delivery[i]),
      };
      figures.threeReplicas = { seconds, ...result, examples: undefined, spread };
      log(`three replicas: 300 flows in ${seconds} s, ${JSON.stringify(result)}, decided per replica ${JSON.stringify(spread)}`);
      expect(result.examples).toEqual([]);
      expect(result).toMatchObject({ flows: 300, lost: 0, doubled: 0 });
      expect(spread.checks.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(300);
      expect(spread.delivery.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(300);
      for (const n of [...spread.checks, ...spread.delivery]) expect(n).toBeGreaterThan(0);
    },
    10 * 60_000,
  );

  it('tears down with docker compose down -v, leaving no container, network or volume', async () => {
    const t = Date.now();
    await project.mustCompose(['down', '-v', '--remove-orphans', '--timeout', '20'], { timeoutMs: 180_000 });
    figures.downSeconds = since(t);
    expect(await project.leftovers()).toEqual({ containers: [], networks: [], volumes: [] });
  }, 200_000);
});
