import type { AppName } from '../../../libs/config/src';
import { RunningApp, startApp } from '../app-process';
import { Sample, scrape } from '../metrics-text';

/** The counters the fault run adds up over every process it started (a killed process takes its counts with it). */
export const COUNTED = [
  'messaging_redeliveries_total',
  'messaging_messages_retried_total',
  'messaging_messages_dead_lettered_total',
  'messaging_request_timeouts_total',
  'messaging_handler_failures_total',
  'delivery_buyer_resends_total',
  'delivery_unresolved_total',
] as const;
export type Counted = (typeof COUNTED)[number];

/** Per counter, per app: the sum over every process of that app the run started. */
export type CounterTotals = Record<Counted, Record<string, number>>;

/**
 * The apps of a fault run. Each can be killed (SIGKILL) and started again;
 * before a kill, and at the end, each process's counters are read from its
 * /metrics and added to the run's totals.
 */
export class Fleet {
  private readonly apps = new Map<AppName, RunningApp>();
  /** Counts of processes that are gone. */
  private readonly retired = emptyTotals();
  /** The last counts read from each running process. */
  private readonly latest = new Map<RunningApp, Sample[]>();

  constructor(private readonly env: (app: AppName) => Record<string, string>) {}

  async start(app: AppName): Promise<RunningApp> {
    const handle = await startApp(app, this.env(app), app === 'sandbox' ? 'live' : 'ready');
    this.apps.set(app, handle);
    return handle;
  }

  get(app: AppName): RunningApp {
    const handle = this.apps.get(app);
    if (!handle) throw new Error(`${app} was never started`);
    return handle;
  }

  url(app: AppName): string {
    return this.get(app).url;
  }

  /** Reads the process's counters, then SIGKILLs it (no shutdown hooks run: in-flight messages stay unacked). */
  async kill(app: AppName): Promise<void> {
    const handle = this.get(app);
    await this.read(handle);
    await handle.kill();
    this.retire(handle);
  }

  /** True when every app answers its readiness probe (the sandbox: liveness). */
  async allReady(): Promise<boolean> {
    const probes = [...this.apps.entries()].map(async ([app, h]) => {
      try {
        const res = await fetch(`${h.managementUrl}/health/${app === 'sandbox' ? 'live' : 'ready'}`, {
          signal: AbortSignal.timeout(3_000),
        });
        return res.ok;
      } catch {
        return false;
      }
    });
    return (await Promise.all(probes)).every(Boolean);
  }

  /** Waits until every app is ready again (after a broker outage); false when `timeoutMs` passed first. */
  async waitAllReady(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await this.allReady()) return true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  }

  /** The counters over the whole run: gone processes plus a fresh read of the running ones. */
  async totals(): Promise<CounterTotals> {
    await Promise.all([...this.apps.values()].map((h) => this.read(h)));
    const out = emptyTotals();
    const add = (from: CounterTotals) => {
      for (const name of COUNTED) for (const [app, n] of Object.entries(from[name])) out[name][app] = (out[name][app] ?? 0) + n;
    };
    add(this.retired);
    for (const [handle, samples] of this.latest) add(countsOf(handle.name, samples));
    return out;
  }

  /** The sandbox's own counters (replayed Idempotency-Keys). */
  async sandboxSamples(): Promise<Sample[]> {
    return (await scrape(this.get('sandbox').managementUrl)).samples;
  }

  private async read(handle: RunningApp): Promise<void> {
    try {
      this.latest.set(handle, (await scrape(handle.managementUrl, 3_000)).samples);
    } catch {
      /* unreachable (a stalled or dying process): keep the last read */
    }
  }

  private retire(handle: RunningApp): void {
    const samples = this.latest.get(handle);
    this.latest.delete(handle);
    if (!samples) return;
    const counts = countsOf(handle.name, samples);
    for (const name of COUNTED)
      for (const [app, n] of Object.entries(counts[name])) this.retired[name][app] = (this.retired[name][app] ?? 0) + n;
  }
}

function emptyTotals(): CounterTotals {
  return Object.fromEntries(COUNTED.map((n) => [n, {}])) as CounterTotals;
}

function countsOf(app: string, samples: Sample[]): CounterTotals {
  const out = emptyTotals();
  for (const s of samples) {
    if ((COUNTED as readonly string[]).includes(s.name)) out[s.name as Counted][app] = (out[s.name as Counted][app] ?? 0) + s.value;
  }
  return out;
}

/** The sum of a counter over every app. */
export function sumOf(totals: CounterTotals, name: Counted): number {
  return Object.values(totals[name]).reduce((a, b) => a + b, 0);
}
