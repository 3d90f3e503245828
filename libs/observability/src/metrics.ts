import { Counter, Histogram, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** How often the event-loop lag histogram samples (nodejs_eventloop_lag_*). */
export const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * Buckets of `http_request_duration_seconds`. The search and submit targets
 * (p99 under 100 ms) sit on a bucket boundary, so the latency alerts'
 * `histogram_quantile(0.99, …) > 0.1` holds exactly when more than 1% of the
 * answers took longer than 100 ms (deploy/prometheus/rules); 75 and 150 ms
 * around it let the dashboard read percentiles near the target.
 */
export const HTTP_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10];

/** One registry per process; every metric is registered once and shared. */
export const metricsRegistry = new Registry();
let defaultsCollected = false;

export function ensureDefaultMetrics(app: string): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  metricsRegistry.setDefaultLabels({ app });
  // The event-loop lag histogram samples on a libuv timer: prom-client's default of every 10 ms wakes an
  // idle process 100 times a second (about 3 ms of CPU a second per process, all of an idle worker's).
  // Every 100 ms still sees any lag worth an alert (those are tens of ms and more).
  collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
}

function once<T>(name: string, make: () => T): T {
  return (metricsRegistry.getSingleMetric(name) as T | undefined) ?? make();
}

export function counter(name: string, help: string, labelNames: string[] = []): Counter<string> {
  return once(name, () => new Counter({ name, help, labelNames, registers: [metricsRegistry] }));
}

export function histogram(name: string, help: string, labelNames: string[] = [], buckets?: number[]): Histogram<string> {
  return once(
    name,
    () =>
      new Histogram({
        name,
        help,
        labelNames,
        registers: [metricsRegistry],
        buckets: buckets ?? [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      }),
  );
}

export function gauge(name: string, help: string, labelNames: string[] = []): Gauge<string> {
  return once(name, () => new Gauge({ name, help, labelNames, registers: [metricsRegistry] }));
}
