import { ChainBreak, ChainCursor, checkLinksAndSeals, ConsentSeal, GENESIS } from '@lr/domain';
import type { ConsentLedger } from '@lr/persistence';

/** Records read and checked per statement. */
const PAGE = 2000;

export interface VerifyReport {
  /** The positions checked (null: none in the window). */
  range: { first: number; last: number } | null;
  /** When the check started after position 1, the digest before it was taken as stored. */
  trustedStart: boolean;
  checked: number;
  sealsChecked: number;
  head: number;
  unchained: number;
  oldestUnchained: string | null;
  break: ChainBreak | null;
}

/**
 * Recomputes the chain (docs/consent-ledger.md): every record rebuilt from the
 * evidence as stored now, hashed in its canonical form, linked to the digest
 * before it; every seal compared with the digest at its count. Stops at the
 * first record that does not match. `window` limits it to the records chained
 * in [from, to); the digest before the first of them is then taken as stored.
 */
export async function verifyChain(
  ledger: ConsentLedger,
  opts: { from: Date | null; to: Date | null; onProgress?: (done: number, total: number) => void },
): Promise<VerifyReport> {
  const summary = await ledger.summary();
  const base = { head: summary.head, unchained: summary.unchained, oldestUnchained: summary.oldestUnchained?.toISOString() ?? null };
  const windowed = opts.from !== null || opts.to !== null;
  const range = windowed ? await ledger.window(opts.from, opts.to) : summary.head > 0 ? { first: 1, last: summary.head } : null;
  const seals = await ledger.seals();
  const sealed = seals.reduce((n, s) => Math.max(n, s.count), 0);
  // A seal beyond the head: records sealed once are gone from the end of the chain.
  const tailBreak: ChainBreak | null =
    !windowed && sealed > summary.head
      ? {
          position: summary.head + 1,
          leadId: null,
          problem: 'missing',
          detail: `the chain ends at position ${summary.head} but ${sealedBy(seals, sealed)} sealed ${sealed} records: records were removed from its end`,
        }
      : null;
  if (!range) return { ...base, range: null, trustedStart: false, checked: 0, sealsChecked: 0, break: tailBreak };

  let cursor: ChainCursor;
  if (range.first === 1) cursor = { position: 0, digest: GENESIS };
  else {
    const before = await ledger.digestAt(range.first - 1);
    if (before === null) {
      return {
        ...base,
        range,
        trustedStart: true,
        checked: 0,
        sealsChecked: 0,
        break: {
          position: range.first - 1,
          leadId: null,
          problem: 'missing',
          detail: `no record at position ${range.first - 1}, before the window`,
        },
      };
    }
    cursor = { position: range.first - 1, digest: before };
  }
  const sealsByCount = new Map<number, ConsentSeal>(
    seals.filter((s) => s.count >= range.first && s.count <= range.last).map((s) => [s.count, s]),
  );
  const total = range.last - range.first + 1;
  opts.onProgress?.(0, total);
  while (cursor.position < range.last) {
    const links = await ledger.links(cursor.position, range.last, PAGE);
    if (links.length === 0) {
      const detail = `no record at position ${cursor.position + 1}: the chain stops at ${cursor.position} before ${range.last}`;
      return {
        ...base,
        range,
        trustedStart: range.first > 1,
        checked: cursor.position - range.first + 1,
        sealsChecked: 0,
        break: { position: cursor.position + 1, leadId: null, problem: 'missing', detail },
      };
    }
    const checked = checkLinksAndSeals(cursor, links, sealsByCount);
    if ('break' in checked) {
      return {
        ...base,
        range,
        trustedStart: range.first > 1,
        checked: checked.break.position - range.first,
        sealsChecked: countBelow(sealsByCount, checked.break.position),
        break: checked.break,
      };
    }
    cursor = checked.cursor;
    opts.onProgress?.(cursor.position - range.first + 1, total);
  }
  return { ...base, range, trustedStart: range.first > 1, checked: total, sealsChecked: sealsByCount.size, break: tailBreak };
}

function countBelow(seals: ReadonlyMap<number, ConsentSeal>, position: number): number {
  return [...seals.keys()].filter((c) => c < position).length;
}

function sealedBy(seals: readonly ConsentSeal[], count: number): string {
  const s = seals.find((x) => x.count === count);
  return s ? `the seal of ${s.day}` : 'a seal';
}

/** The report as text lines. */
export function verifyLines(r: VerifyReport): string[] {
  const lines: string[] = [];
  if (!r.range)
    lines.push(r.head === 0 ? 'consent chain: empty (no consent event chained yet)' : 'consent chain: no record chained in the window');
  else {
    const scope = `positions ${r.range.first}..${r.range.last}${r.trustedStart ? ` (from the digest stored at position ${r.range.first - 1})` : ' (from the first record)'}`;
    lines.push(
      r.break
        ? `consent chain: BROKEN, ${scope}`
        : `consent chain: intact, ${scope}: ${r.checked} records recomputed, ${r.sealsChecked} seals matched`,
    );
  }
  if (r.break) {
    lines.push(`first record that does not match: position ${r.break.position}${r.break.leadId ? `, svc_lead_id ${r.break.leadId}` : ''}`);
    lines.push(`  ${r.break.problem}: ${r.break.detail}`);
    lines.push(`  ${r.checked} records before it matched`);
  }
  lines.push(
    `chain head: position ${r.head}; appended, not chained yet: ${r.unchained}${r.oldestUnchained ? ` (oldest appended ${r.oldestUnchained})` : ''}`,
  );
  return lines;
}

/** The report as JSON (stable keys). */
export function verifyJson(r: VerifyReport): Record<string, unknown> {
  return {
    intact: r.break === null,
    range: r.range,
    trusted_start: r.trustedStart,
    checked: r.checked,
    seals_checked: r.sealsChecked,
    head: r.head,
    unchained: r.unchained,
    oldest_unchained: r.oldestUnchained,
    break: r.break ? { position: r.break.position, svc_lead_id: r.break.leadId, problem: r.break.problem, detail: r.break.detail } : null,
  };
}
