import { writeFileSync } from 'node:fs';
import type { Row, Target } from './report';

/** What one bench hands to `npm run bench` (bench/all-bench.ts): its table, its targets and its raw figures. */
export interface BenchSection {
  name: string;
  title: string;
  rows: Row[];
  targets: Target[];
  figures: unknown;
}

/**
 * Writes the section to the file named by BENCH_SECTION_OUT, when the bench
 * runs under `npm run bench`; a bench run on its own writes nothing more.
 */
export function writeSection(section: BenchSection): void {
  const out = process.env.BENCH_SECTION_OUT;
  if (out) writeFileSync(out, `${JSON.stringify(section, null, 2)}\n`);
}
