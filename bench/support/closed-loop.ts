import { performance } from 'node:perf_hooks';
import { Call, keepAliveAgent, send } from './http-client';
import { LatencySummary, summarize } from './stats';

export interface ClosedLoopOptions {
  baseUrl: string;
  /** Connections, each sending its next request as soon as its answer is in. */
  connections: number;
  warmupMs: number;
  durationMs: number;
  call: (i: number) => Call;
  timeoutMs?: number;
}

export interface ClosedLoopResult extends LatencySummary {
  connections: number;
  /** Successful answers per second over the measured window. */
  throughput: number;
  /** Every request sent, warm-up and failures included (what a server's CPU time over the whole run is divided by). */
  sent: number;
}

/**
 * Closed-loop load for throughput: `connections` keep-alive connections, each
 * with one request outstanding at a time. The server's capacity is the answer
 * rate it reaches; latency here is per request sent (it says how long the
 * queue in front of the server is at that concurrency, not what a caller at a
 * given rate would see — that is the open-loop run's job).
 */
export async function runClosedLoop(o: ClosedLoopOptions): Promise<ClosedLoopResult> {
  const agent = keepAliveAgent(o.connections);
  const base = new URL(o.baseUrl);
  const start = performance.now();
  const measureFrom = start + o.warmupMs;
  const stopAt = measureFrom + o.durationMs;
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;

  const worker = async () => {
    while (performance.now() < stopAt) {
      const sentAt = performance.now();
      let status: number;
      try {
        status = (await send(agent, base, o.call(next++), o.timeoutMs ?? 10_000)).status;
      } catch {
        status = 0;
      }
      if (sentAt < measureFrom) continue;
      if (status === 200) latencies.push(performance.now() - sentAt);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: o.connections }, worker));
  const windowMs = performance.now() - measureFrom;
  agent.destroy();
  return {
    ...summarize(latencies, errors),
    connections: o.connections,
    throughput: Math.round(latencies.length / (windowMs / 1000)),
    sent: next,
  };
}
