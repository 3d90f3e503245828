/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a /metrics answer (text format 0.0.4), and the metric families it declares (# TYPE lines). */
export function parseMetrics(text: string): { samples: Sample[]; families: Set<string> } {
  const samples: Sample[] = [];
  const families = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) \S+/.exec(line);
    if (type) families.add(type[1]);
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)/.exec(line);
    if (!m) throw new Error(`unparsable metrics line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return { samples, families };
}

/** GET <baseUrl>/metrics, parsed; rejects on a non-200 answer or after `timeoutMs`. */
export async function scrape(baseUrl: string, timeoutMs = 5_000): Promise<{ samples: Sample[]; families: Set<string> }> {
  const res = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`GET ${baseUrl}/metrics answered ${res.status}`);
  return parseMetrics(await res.text());
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/**
 * From two scrapes of a histogram (before and after a phase): per label set
 * (the values of every label but `le`, joined by "/"), how many observations
 * the phase added and the upper bound of the bucket holding their p50 and
 * p99, in the histogram's unit.
 */
export function histogramDelta(
  before: Sample[],
  after: Sample[],
  name: string,
): Array<{ key: string; count: number; p50: number; p99: number }> {
  const series = (s: Sample) =>
    Object.entries(s.labels)
      .filter(([k]) => k !== 'le')
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, v]) => v)
      .join('/');
  const buckets = (samples: Sample[]) => samples.filter((s) => s.name === `${name}_bucket`);
  const old = new Map(buckets(before).map((s) => [`${series(s)}|${s.labels.le}`, s.value]));
  const byKey = new Map<string, Array<{ le: number; n: number }>>();
  for (const s of buckets(after)) {
    const n = s.value - (old.get(`${series(s)}|${s.labels.le}`) ?? 0);
    const list = byKey.get(series(s)) ?? [];
    list.push({ le: s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), n });
    byKey.set(series(s), list);
  }
  return [...byKey]
    .map(([key, list]) => {
      list.sort((a, b) => a.le - b.le);
      const count = list[list.length - 1]?.n ?? 0;
      const at = (q: number) => list.find((b) => b.n >= q * count)?.le ?? NaN;
      return { key, count, p50: at(0.5), p99: at(0.99) };
    })
    .filter((h) => h.count > 0);
}
