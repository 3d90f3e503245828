import { performance } from 'node:perf_hooks';
import { Answer, Call, keepAliveAgent, send } from './http-client';
import { LatencySummary, summarize } from './stats';

export interface OpenLoopOptions {
  baseUrl: string;
  /** Requests per second offered, whatever the server does. */
  rate: number;
  warmupMs: number;
  durationMs: number;
  /** The i-th request (warm-up included). */
  call: (i: number) => Call;
  /** Whether an answer counts as a success (default: HTTP 200). */
  ok?: (a: Answer) => boolean;
  /** Sees every measured successful answer (e.g. to count offers). */
  onAnswer?: (a: Answer, i: number) => void;
  timeoutMs?: number;
}

export interface OpenLoopResult extends LatencySummary {
  offeredRate: number;
  /** Successful answers per second over the measured window (first measured send to last measured answer). */
  achievedRate: number;
  /** The ten slowest measured answers: when each was due (ms after the first measured one) and how long it took, to tell a stall from a queue. */
  slowest: Array<{ dueMs: number; ms: number }>;
}

/**
 * Open-loop load: request i is due at start + i/rate and is sent then, whether
 * or not earlier requests have been answered (each on its own connection when
 * the others are busy). Latency is taken from the due time, not from the
 * moment the request left, so any queueing — in the server, or behind a
 * connection — shows in the figures. A closed-loop tool (autocannon, wrk, ab)
 * sends the next request only when an answer comes back, so when the server
 * slows down it quietly lowers the offered load and the latency it reports
 * hides exactly the waiting a real caller would see (coordinated omission).
 */
export async function runOpenLoop(o: OpenLoopOptions): Promise<OpenLoopResult> {
  const agent = keepAliveAgent();
  const base = new URL(o.baseUrl);
  const ok = o.ok ?? ((a: Answer) => a.status === 200);
  const intervalMs = 1000 / o.rate;
  const total = Math.round(((o.warmupMs + o.durationMs) / 1000) * o.rate);
  const measuredFrom = Math.round((o.warmupMs / 1000) * o.rate);
  const latencies: number[] = [];
  const timeline: Array<{ dueMs: number; ms: number }> = [];
  let errors = 0;
  let lastAnswerAt = 0;
  const inFlight: Array<Promise<void>> = [];
  const start = performance.now() + 20;

  const fire = (i: number, dueAt: number) => {
    const measured = i >= measuredFrom;
    const done = send(agent, base, o.call(i), o.timeoutMs ?? 10_000).then(
      (answer) => {
        const at = performance.now();
        if (!measured) return;
        lastAnswerAt = Math.max(lastAnswerAt, at);
        if (!ok(answer)) {
          errors++;
          return;
        }
        latencies.push(at - dueAt);
        timeline.push({ dueMs: Math.round(dueAt - (start + measuredFrom * intervalMs)), ms: Math.round(at - dueAt) });
        o.onAnswer?.(answer, i);
      },
      () => {
        if (measured) errors++;
      },
    );
    inFlight.push(done);
  };

  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * intervalMs <= now) {
        fire(next, start + next * intervalMs);
        next++;
      }
      if (next >= total) return resolve();
      setTimeout(tick, Math.max(0, start + next * intervalMs - performance.now()));
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });
  await Promise.all(inFlight);
  agent.destroy();

  const windowMs = lastAnswerAt - (start + measuredFrom * intervalMs);
  return {
    ...summarize(latencies, errors),
    offeredRate: o.rate,
    achievedRate: Math.round((latencies.length / (windowMs / 1000)) * 10) / 10,
    slowest: timeline.sort((a, b) => b.ms - a.ms).slice(0, 10),
  };
}
