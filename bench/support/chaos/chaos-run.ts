import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { AppName } from '../../../libs/config/src';
import { stopAllApps } from '../app-process';
import { opsWith, queuedMessages } from '../bench-state';
import { total } from '../metrics-text';
import { chaosCatalog } from './chaos-catalog';
import { ChaosDriver, seededRandom, Tally } from './chaos-driver';
import { BrokerFault, ChaosBroker, ownNodeBroker, proxiedBroker } from './broker';
import { FaultRecord, faultPlan, runFaults } from './faults';
import { CounterTotals, Fleet, sumOf } from './fleet';
import { readReceipts, reconcile, Reconciliation } from './reconcile';

export interface ChaosOptions {
  /** The apps' and the operator CLI's environment: the run's own database, Redis prefix, vhost and queue prefix. */
  env: Record<string, string>;
  /** Extra settings for the apps only (retry delays, the gateway's answer timeout). */
  appEnv: Record<string, string>;
  /** The vhost of env.AMQP_URL (with brokerFault `proxy`). */
  vhost: string;
  amqpPrefix: string;
  /** How long traffic runs; it also runs until the last fault has recovered. */
  driveMs: number;
  clients: number;
  /** Time between the start of two faults. */
  faultEveryMs: number;
  warmupMs: number;
  /** How long a killed app stays down. */
  pauseMs: number;
  brokerFault: BrokerFault;
  brokerOutageMs: number;
  /** Longest wait, after the traffic, for every submit to have its final decision and every queue to drain. */
  settleMs: number;
  seed: number;
  log: (msg: string) => void;
}

export interface ChaosReport {
  run: string;
  /** The options, without the environment (it holds connection URLs) and the logger. */
  options: Omit<ChaosOptions, 'env' | 'log'>;
  driveSeconds: number;
  searches: Tally;
  polls: Tally;
  submits: Tally & { taken: number; pendingAnswers: number; decidedAfterPending: number };
  statusReads: Tally;
  faults: FaultRecord[];
  counters: CounterTotals;
  redeliveries: number;
  settle: { seconds: number; settled: boolean; undecidedByDriver: number; pendingInDatabase: number; queued: number; deadLettered: number };
  reconciliation: Reconciliation;
  /** Why the run fails; empty when every required figure holds. */
  failures: string[];
}

const WORKERS = ['checks', 'partner-adapter', 'search-orchestrator', 'delivery'] as const satisfies readonly AppName[];

/**
 * The fault run (docs/chaos.md): starts the sandbox and every app from the
 * build, applies its catalog, drives searches and submits while it kills each
 * app in turn and cuts the broker once, lets the system settle, reconciles and
 * returns the figures. Stops every process it started, whatever happens.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const run = randomBytes(3).toString('hex');
  const db = new Client({ connectionString: o.env.DATABASE_URL });
  let driver: ChaosDriver | undefined;
  let broker: ChaosBroker | undefined;
  try {
    broker = o.brokerFault === 'own-node' ? await ownNodeBroker(run, o.log) : await proxiedBroker(o.env.AMQP_URL, o.vhost);
    const amqpUrl = broker.amqpUrl;
    const fleet = new Fleet(() => ({ ...o.env, ...o.appEnv, AMQP_URL: amqpUrl }));

    const sandbox = await fleet.start('sandbox');
    const c = chaosCatalog(sandbox.url, run);
    const dir = mkdtempSync(join(tmpdir(), 'lr-chaos-'));
    try {
      writeFileSync(join(dir, 'catalog.json'), JSON.stringify(c.catalog));
      opsWith(o.env, 'catalog', 'apply', join(dir, 'catalog.json'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const roomy = ['search', 'results', 'leads'].flatMap((e) => ['--limit', `${e}=1000000/100000`]);
    const { key } = JSON.parse(opsWith(o.env, 'keys', 'issue', '--affiliate', c.affiliateId, ...roomy)) as { key: string };
    o.log(`run ${run}: starting ${WORKERS.join(', ')} and the gateway`);
    await Promise.all(WORKERS.map((w) => fleet.start(w)));
    await fleet.start('gateway');
    await db.connect();

    const submitAnswerMs = Number(o.appEnv.SUBMIT_ANSWER_TIMEOUT_MS ?? 5000);
    driver = new ChaosDriver({
      gatewayUrl: () => fleet.url('gateway'),
      key,
      affiliateId: c.affiliateId,
      campaignId: c.campaignId,
      ownOfferIds: c.ownOfferIds,
      run,
      random: seededRandom(o.seed),
      submitTimeoutMs: submitAnswerMs + 10_000,
      partnerWaitMs: 1_000,
    });
    const plan = faultPlan({
      driveMs: o.driveMs,
      everyMs: o.faultEveryMs,
      warmupMs: o.warmupMs,
      pauseMs: o.pauseMs,
      brokerOutageMs: o.brokerOutageMs,
    });
    o.log(`driving ${o.clients} clients for ${Math.round(o.driveMs / 1000)} s; faults: ${plan.join(', ')}`);
    const watched = { delivery: [c.slowOfferId], 'partner-adapter': c.partnerOfferIds };
    const startedAt = Date.now();
    const driving = driver.run(o.clients);
    let drivingFailed: unknown;
    driving.catch((e: unknown) => (drivingFailed = e));
    let faults: FaultRecord[];
    try {
      faults = await runFaults(
        plan,
        { driveMs: o.driveMs, everyMs: o.faultEveryMs, warmupMs: o.warmupMs, pauseMs: o.pauseMs, brokerOutageMs: o.brokerOutageMs },
        { fleet, broker, beforeKill: (f) => inFlightBefore(f, db, c.campaignId, watched), log: o.log },
        startedAt,
      );
      const left = startedAt + o.driveMs - Date.now();
      if (left > 0 && !drivingFailed) await sleep(left);
    } finally {
      driver.stop();
      await driving.catch(() => undefined);
    }
    if (drivingFailed) throw drivingFailed;
    const driveSeconds = Math.round((Date.now() - startedAt) / 100) / 10;
    o.log(`traffic stopped after ${driveSeconds} s: ${driver.searches.sent} searches, ${driver.submits.sent} submits; settling`);

    const settle = await settleDown(o, broker, driver, db, c.campaignId);
    o.log(`settled: ${JSON.stringify(settle)}`);
    const counters = await fleet.totals();
    const sandboxSamples = await fleet.sandboxSamples();
    const replayed = {
      school: total(sandboxSamples, 'sandbox_requests_total', { endpoint: 'school_lead', outcome: 'replayed' }),
      partner: total(sandboxSamples, 'sandbox_requests_total', { endpoint: 'partner_submit', outcome: 'replayed' }),
    };
    const receipts = await readReceipts(sandbox.url, c.names, replayed, sumOf(counters, 'delivery_buyer_resends_total'));
    if (receipts.total > receipts.listed)
      throw new Error(`the sandbox kept ${receipts.listed} of ${receipts.total} receipts: the run is too large to reconcile`);
    const reconciliation = await reconcile(db, c.campaignId, driver, receipts);
    const redeliveries = sumOf(counters, 'messaging_redeliveries_total');
    const taken = driver.leads.size;
    const pendingAnswers = [...driver.leads.values()].filter((l) => l.firstHttp === 202).length;
    const decidedAfterPending = [...driver.leads.values()].filter(
      (l) => l.firstHttp === 202 && l.finalCode !== undefined && l.finalCode !== 'PENDING',
    ).length;
    return {
      run,
      options: optionsShown(o),
      driveSeconds,
      searches: driver.searches,
      polls: driver.polls,
      submits: Object.assign(driver.submits, { taken, pendingAnswers, decidedAfterPending }),
      statusReads: driver.statusReads,
      faults,
      counters,
      redeliveries,
      settle,
      reconciliation,
      failures: failuresOf(reconciliation, redeliveries),
    };
  } finally {
    driver?.close();
    await stopAllApps();
    await broker?.close();
    await db.end().catch(() => undefined);
  }
}

/** What the run requires: nothing lost, nothing delivered twice, no cap or sale rule broken, and proof that faults hit. */
export function failuresOf(r: Reconciliation, redeliveries: number): string[] {
  const out: string[] = [];
  if (r.lostTotal > 0) out.push(`${r.lostTotal} submit(s) lost`);
  if (r.deliveredTwice.total > 0) out.push(`${r.deliveredTwice.total} lead(s) delivered twice`);
  if (r.capOvershoots.length > 0) out.push(`${r.capOvershoots.length} cap overshoot(s)`);
  if (r.saleLimitOvershoots.length > 0) out.push(`${r.saleLimitOvershoots.length} sale-limit overshoot(s)`);
  if (r.duplicateSales > 0) out.push(`${r.duplicateSales} person(s) sold twice to one offer`);
  if (r.answerMismatches.length > 0) out.push(`${r.answerMismatches.length} answer(s) contradict the stored decision`);
  if (r.deliveredNotAccepted.school.length > 0)
    out.push(`${r.deliveredNotAccepted.school.length} lead(s) a school took but the service did not accept`);
  if (r.retriesAnsweredDifferently.length > 0)
    out.push(`${r.retriesAnsweredDifferently.length} retried submit(s) answered differently from the original`);
  if (redeliveries === 0) out.push('no redelivery seen: the faults did not hit in-flight work');
  if (r.capsFilled === 0) out.push('no cap filled: the cap figure proves nothing');
  if (r.groupsAtSaleLimit === 0) out.push('no lead sold 3 times or true_exclusive: the sale-limit figure proves nothing');
  return out;
}

/**
 * Before a kill of delivery (or partner-adapter), waits at most 4 s until a
 * delivery to one of `offers` (the slow school; the partner offers) is in
 * flight, so the kill cuts a call to a buyer; says how many were in flight.
 */
async function inFlightBefore(
  fault: string,
  db: Client,
  campaignId: string,
  offers: Partial<Record<string, string[]>>,
): Promise<string | undefined> {
  const watched = offers[fault];
  if (!watched) return undefined;
  const deadline = Date.now() + 4_000;
  let n = 0;
  while (Date.now() < deadline) {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM delivery_attempts a JOIN leads l ON l.id = a.lead_id
        WHERE l.campaign_id = $1 AND l.offer_id = ANY($2::uuid[]) AND a.finished_at IS NULL`,
      [campaignId, watched],
    );
    n = rows[0].n;
    if (n > 0) break;
    await sleep(100);
  }
  return `${n} ${fault === 'delivery' ? 'deliveries to the slow school' : 'partner submits'} in flight`;
}

/** Waits until every submit the driver got an id for has its decision, nothing is pending in PostgreSQL and the queues are empty. */
async function settleDown(
  o: ChaosOptions,
  broker: ChaosBroker,
  driver: ChaosDriver,
  db: Client,
  campaignId: string,
): Promise<ChaosReport['settle']> {
  const queued = (withDeadLetters: boolean) => queuedMessages(broker.vhost, { prefix: o.amqpPrefix, withDeadLetters, node: broker.node });
  const started = Date.now();
  const deadline = started + o.settleMs;
  let undecided: number;
  let pending: number;
  let left: number;
  for (;;) {
    undecided = await driver.readDecisions();
    pending = (
      await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM leads WHERE campaign_id = $1 AND status = 'pending'`, [campaignId])
    ).rows[0].n;
    left = queued(false);
    if ((undecided === 0 && pending === 0 && left === 0) || Date.now() > deadline) break;
    await sleep(1_000);
  }
  const deadLettered = queued(true) - queued(false);
  const settled = undecided === 0 && pending === 0 && left === 0;
  return {
    seconds: Math.round((Date.now() - started) / 100) / 10,
    settled,
    undecidedByDriver: undecided,
    pendingInDatabase: pending,
    queued: left,
    deadLettered,
  };
}

function optionsShown(o: ChaosOptions): ChaosReport['options'] {
  const shown: Partial<ChaosOptions> = { ...o };
  delete shown.env;
  delete shown.log;
  return shown as ChaosReport['options'];
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
