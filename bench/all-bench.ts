import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchLog as log } from './support/bench-main';
import { ROOT } from './support/app-process';
import { renderReport, Row } from './support/report';
import type { BenchSection } from './support/section';

/**
 * `npm run bench`: every bench in turn (search and polls, submit, duplicate
 * pre-check, how cost grows), each a child process with its own state and
 * clean-up, then `bench/results/<date>.json` with all their figures and
 * `bench/results/<date>.md` with them as one table (figures live in
 * bench/results; docs/performance.md says what each bench measures).
 * `BENCH_ONLY=search,submit` runs a subset. Exit code 1 when a bench failed
 * or a target was missed.
 */
const BENCHES = ['search', 'submit', 'dupe-check', 'scale'] as const;

function runChild(name: string, out: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(__dirname, `${name}-bench.js`)], {
      env: { ...process.env, BENCH_SECTION_OUT: out },
      stdio: 'inherit',
    });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 130 : 1));
    });
  });
}

/** The markdown table of every section, with the targets under each. */
function markdown(sections: BenchSection[], date: string, machine: string): string {
  const lines = [`Figures of \`npm run bench\` on ${date}, ${machine} (\`bench/results/${date}.json\`). Ratio = system / baseline.`, ''];
  for (const s of sections) {
    lines.push(`**${s.title}**`, '', '| metric | system | baseline | ratio |', '| --- | --- | --- | --- |');
    for (const r of s.rows as Row[]) {
      const ratio = r.baseline ? (r.system / r.baseline).toFixed(2) : '–';
      lines.push(`| ${r.metric} | ${r.system} | ${r.baseline ?? '–'} | ${ratio} |`);
    }
    for (const t of s.targets) lines.push('', `- ${t.met ? 'PASS' : 'MISS'} ${t.name}: ${t.detail}`);
    lines.push('');
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
  const chosen = BENCHES.filter((b) => !only || only.includes(b));
  const dir = mkdtempSync(join(tmpdir(), 'lr-bench-all-'));
  const sections: BenchSection[] = [];
  const failed: string[] = [];
  for (const name of chosen) {
    log(`=== ${name} ===`);
    const out = join(dir, `${name}.json`);
    const code = await runChild(name, out);
    if (code === 130) throw new Error(`interrupted during ${name}`);
    if (code !== 0 || !existsSync(out)) {
      failed.push(name);
      continue;
    }
    sections.push(JSON.parse(readFileSync(out, 'utf8')) as BenchSection);
  }

  const date = new Date().toISOString().slice(0, 10);
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), Node.js ${process.version}`;
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const file = join(ROOT, 'bench', 'results', `${date}.json`);
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), machine, failed, sections }, null, 2)}\n`);

  const tableFile = join(ROOT, 'bench', 'results', `${date}.md`);
  writeFileSync(tableFile, `${markdown(sections, date, machine)}\n`);

  process.stdout.write('\n== All benches ==\n');
  for (const s of sections) process.stdout.write(`\n${s.title}\n\n${renderReport(s.rows as Row[], s.targets)}\n`);
  const missed = sections.flatMap((s) => s.targets.filter((t) => !t.met).map((t) => `${s.name}: ${t.name}`));
  if (failed.length > 0) process.stdout.write(`\nFAILED benches: ${failed.join(', ')}\n`);
  if (missed.length > 0) process.stdout.write(`\nMISSED targets: ${missed.join('; ')}\n`);
  log(`figures written to ${file} and ${tableFile}`);
  if (failed.length > 0 || missed.length > 0) process.exitCode = 1;
}

main().catch((e: unknown) => {
  process.stderr.write(`[bench] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
