// The parser lives in bench/support (the build includes bench/, not test/), so the fault run reads /metrics with it too.
export { parseMetrics, scrape, total } from '../../bench/support/metrics-text';
export type { Sample } from '../../bench/support/metrics-text';
