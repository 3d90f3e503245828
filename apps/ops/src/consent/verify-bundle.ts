import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import canonicalize from 'canonicalize';
import { checkEventProof, ProofLine } from '@lr/domain';
import { renderBundleHtml, renderProcedure } from './bundle-html';
import { Bundle, BUNDLE_FILES, BUNDLE_FORMAT, BUNDLE_FORMAT_1 } from './bundle-model';

export interface BundleCheck {
  ok: boolean;
  /** The first problem found (null when the bundle verifies). */
  problem: string | null;
  events: number;
  sealed: number;
  /** Events whose day was not over when exported: their records and links are proven, not yet a seal. */
  unsealed: number[];
}

/**
 * Checks a consent bundle offline, with no database (docs/consent-ledger.md,
 * "Checking a bundle"): every file against SHA256SUMS and no file more; each
 * record file canonical (RFC 8785) and equal to its event's record; each
 * event's proof (record hash, digest, neighbours, the chain lines up to its
 * seal: libs/domain checkEventProof); the page and the procedure exactly as
 * rendered from the events. Changing any byte of the bundle fails one of these.
 */
export async function verifyBundle(dir: string): Promise<BundleCheck> {
  const fail = (problem: string, events = 0): BundleCheck => ({ ok: false, problem, events, sealed: 0, unsealed: [] });
  const files = new Map<string, Buffer>();
  try {
    for (const name of await listFiles(dir)) files.set(name, await readFile(join(dir, name)));
  } catch (e) {
    return fail(`cannot read ${dir}: ${(e as Error).message}`);
  }
  const sums = files.get(BUNDLE_FILES.sums);
  if (!sums) return fail(`${BUNDLE_FILES.sums} is missing`);
  const listed = new Set<string>();
  for (const line of sums
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')) {
    const m = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (!m) return fail(`${BUNDLE_FILES.sums}: a line is not "<sha256>  <file>": ${JSON.stringify(line.slice(0, 80))}`);
    const body = files.get(m[2]);
    if (!body) return fail(`${m[2]} is listed in ${BUNDLE_FILES.sums} but missing`);
    if (createHash('sha256').update(body).digest('hex') !== m[1]) return fail(`${m[2]} does not match its sha256 in ${BUNDLE_FILES.sums}`);
    listed.add(m[2]);
  }
  for (const name of files.keys())
    if (name !== BUNDLE_FILES.sums && !listed.has(name)) return fail(`${name} is not listed in ${BUNDLE_FILES.sums}`);

  let bundle: Bundle;
  try {
    bundle = JSON.parse(text(files, BUNDLE_FILES.events)) as Bundle;
  } catch (e) {
    return fail(`${BUNDLE_FILES.events} is not readable JSON: ${(e as Error).message}`);
  }
  if ((bundle.format !== BUNDLE_FORMAT && bundle.format !== BUNDLE_FORMAT_1) || !Array.isArray(bundle.events))
    return fail(`${BUNDLE_FILES.events} is not a ${BUNDLE_FORMAT} (or ${BUNDLE_FORMAT_1}) bundle`);
  if (`${JSON.stringify(bundle, null, 2)}\n` !== text(files, BUNDLE_FILES.events))
    return fail(`${BUNDLE_FILES.events} is not laid out as exported`);

  const lines = parseChain(text(files, BUNDLE_FILES.chain));
  if (typeof lines === 'string') return fail(lines, bundle.events.length);
  const unsealed: number[] = [];
  for (const ev of bundle.events) {
    const recordFileText = files.get(ev.record_file)?.toString('utf8');
    if (recordFileText === undefined) return fail(`record ${ev.position}: ${ev.record_file} is missing`, bundle.events.length);
    let parsed: unknown;
    try {
      parsed = JSON.parse(recordFileText);
    } catch {
      return fail(`record ${ev.position}: ${ev.record_file} is not JSON`, bundle.events.length);
    }
    if (canonicalize(parsed) !== recordFileText)
      return fail(`record ${ev.position}: ${ev.record_file} is not in canonical form (RFC 8785)`, bundle.events.length);
    if (canonicalize(ev.record) !== recordFileText)
      return fail(
        `record ${ev.position}: the event's record in ${BUNDLE_FILES.events} differs from ${ev.record_file}`,
        bundle.events.length,
      );
    if (ev.record.position !== ev.position)
      return fail(`record ${ev.position}: the record names position ${ev.record.position}`, bundle.events.length);
    const seal = ev.seal ? { day: ev.seal.day, count: ev.seal.count, headDigest: ev.seal.head_digest, sealedAt: ev.seal.sealed_at } : null;
    const problem = checkEventProof(
      recordFileText,
      { position: ev.position, recordHash: ev.record_hash, prevDigest: ev.prev_digest, digest: ev.digest, seal },
      lines,
    );
    if (problem) return fail(problem, bundle.events.length);
    if (!seal) unsealed.push(ev.position);
  }
  if (renderBundleHtml(bundle) !== text(files, BUNDLE_FILES.html))
    return fail(`${BUNDLE_FILES.html} is not the page of ${BUNDLE_FILES.events}`, bundle.events.length);
  if (renderProcedure(bundle) !== text(files, BUNDLE_FILES.procedure))
    return fail(`${BUNDLE_FILES.procedure} is not the procedure of this bundle`, bundle.events.length);
  return { ok: true, problem: null, events: bundle.events.length, sealed: bundle.events.length - unsealed.length, unsealed };
}

function text(files: ReadonlyMap<string, Buffer>, name: string): string {
  return files.get(name)?.toString('utf8') ?? '';
}

/** chain.tsv by position, or what is wrong with it. */
function parseChain(body: string): Map<number, ProofLine> | string {
  const lines = new Map<number, ProofLine>();
  for (const line of body.split('\n').filter((l) => l !== '')) {
    const m = /^([1-9]\d*)\t([0-9a-f]{64})\t([0-9a-f]{64})$/.exec(line);
    if (!m) return `${BUNDLE_FILES.chain}: a line is not "<position> <record hash> <digest>": ${JSON.stringify(line.slice(0, 80))}`;
    lines.set(Number(m[1]), { position: Number(m[1]), recordHash: m[2], digest: m[3] });
  }
  return lines;
}

async function listFiles(dir: string, root = dir): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const abs = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(abs, root)));
    else out.push(relative(root, abs).split(sep).join('/'));
  }
  return out;
}

/** The check as text lines. */
export function bundleLines(dir: string, c: BundleCheck): string[] {
  if (!c.ok) return [`bundle ${dir}: does NOT verify`, `  ${c.problem}`];
  return [
    `bundle ${dir}: verifies: ${c.events} consent event${c.events === 1 ? '' : 's'}, every file matches SHA256SUMS, each record's hash, digest and neighbours recomputed, ${c.sealed} linked to the seal of their day`,
    ...(c.unsealed.length > 0
      ? [
          `  not sealed when exported (their day was not over): positions ${c.unsealed.join(', ')}; export again after the day's seal for a sealed proof`,
        ]
      : []),
  ];
}
