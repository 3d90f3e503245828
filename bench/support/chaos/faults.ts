import type { AppName } from '../../../libs/config/src';
import type { ChaosBroker } from './broker';
import type { Fleet } from './fleet';

/** The apps killed in turn, in this order. */
export const KILLED_APPS = [
  'search-orchestrator',
  'checks',
  'partner-adapter',
  'delivery',
  'gateway',
] as const satisfies readonly AppName[];
export type Fault = (typeof KILLED_APPS)[number] | 'broker';

export interface FaultRecord {
  fault: Fault;
  /** Seconds since the drive began. */
  at: number;
  /** How long the app (or the broker) was away, in ms, until it was ready again. */
  downMs: number;
  /** What was in flight when the fault hit (delivery: unfinished deliveries to buyers). */
  note?: string;
}

export interface FaultPlanOptions {
  driveMs: number;
  /** Time between the start of two faults. */
  everyMs: number;
  /** First fault after this much traffic. */
  warmupMs: number;
  /** How long a killed app stays down before it is started again. */
  pauseMs: number;
  brokerOutageMs: number;
}

/**
 * The faults in order: every app killed in turn, the broker outage once in
 * the middle of the first round, then more rounds of kills while the drive
 * lasts. A fault starts only after the previous one has recovered.
 */
export function faultPlan(o: FaultPlanOptions): Fault[] {
  const slots = Math.max(KILLED_APPS.length + 1, Math.floor((o.driveMs - o.warmupMs) / o.everyMs));
  const plan: Fault[] = [];
  for (let i = 0; plan.length < slots; i++) {
    plan.push(KILLED_APPS[i % KILLED_APPS.length]);
    if (i === 2) plan.push('broker');
  }
  return plan.slice(0, slots);
}

export interface FaultRunner {
  fleet: Fleet;
  broker: ChaosBroker;
  /** Before a delivery kill: a short wait for a delivery to a buyer in flight, and a note on what was in flight. */
  beforeKill?: (app: Fault) => Promise<string | undefined>;
  log: (msg: string) => void;
}

/** Runs the plan from `startedAt` (epoch ms), one fault every `everyMs`; resolves when the last one has recovered. */
export async function runFaults(plan: Fault[], o: FaultPlanOptions, r: FaultRunner, startedAt: number): Promise<FaultRecord[]> {
  const records: FaultRecord[] = [];
  for (let i = 0; i < plan.length; i++) {
    const due = startedAt + o.warmupMs + i * o.everyMs;
    if (due > Date.now()) await sleep(due - Date.now());
    const fault = plan[i];
    const note = await r.beforeKill?.(fault);
    const began = Date.now();
    const at = Math.round((began - startedAt) / 100) / 10;
    if (fault === 'broker') await r.broker.outage(o.brokerOutageMs);
    else {
      await r.fleet.kill(fault);
      await sleep(o.pauseMs);
      await r.fleet.start(fault);
    }
    if (!(await r.fleet.waitAllReady(60_000))) throw new Error(`the apps were not all ready within 60 s after the ${fault} fault`);
    const record: FaultRecord = { fault, at, downMs: Date.now() - began, ...(note ? { note } : {}) };
    r.log(
      `fault ${i + 1}/${plan.length}: ${fault === 'broker' ? `broker outage (${r.broker.fault})` : `${fault} SIGKILLed`} at ${at} s, ready again after ${record.downMs} ms${note ? ` (${note})` : ''}`,
    );
    records.push(record);
  }
  return records;
}

function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms));
}
