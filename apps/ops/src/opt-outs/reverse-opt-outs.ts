import { ReversalRefusal, reversalRefusal } from '@lr/domain';
import type { ListedOptOut, OptOuts, Reversal } from '@lr/persistence';

/** Which opt-outs to reverse: these ids, or every one an API key sent in [since, until). */
export type ReversalTarget = { ids: readonly string[] } | { apiKeyId: string; since: Date | null; until: Date | null };

export interface ReversalReport extends Omit<Reversal, 'reversed'> {
  reversed: string[];
  /** Opt-outs named but not reversed by this run, and why (reversed before, or meanwhile, is not a failure). */
  refused: Array<{ id: string; why: ReversalRefusal }>;
}

/** Opt-outs reversed per transaction: the person's locks are held for one batch at a time. */
const BATCH = 100;
/** At most this many opt-outs of one key are reversed by one run (a larger range: run it again, or narrow it). */
export const KEY_RANGE_MAX = 100_000;

/**
 * `optout reverse` (docs/opt-outs.md, "Reversing opt-outs"): the opt-outs
 * named (or a key's in a time range) that can be reversed, reversed in
 * batches by `actor` for `reason`, with what it changed. Safe to repeat: an
 * opt-out reversed before, or by a concurrent run, is reported as such and
 * changes nothing.
 */
export async function reverseOptOuts(optOuts: OptOuts, target: ReversalTarget, actor: string, reason: string): Promise<ReversalReport> {
  const report: ReversalReport = {
    reversed: [],
    refused: [],
    keysLifted: 0,
    keysKept: 0,
    notices: { cancelled: 0, underWay: 0, handedOver: 0, alreadySent: 0 },
  };
  const candidates = await candidatesOf(optOuts, target, report);
  for (let i = 0; i < candidates.length; i += BATCH) {
    const batch = candidates.slice(i, i + BATCH);
    const r = await optOuts.reverse(batch, actor, reason);
    const reversed = new Set(r.reversed);
    report.reversed.push(...r.reversed);
    report.refused.push(...batch.filter((id) => !reversed.has(id)).map((id) => ({ id, why: 'already_reversed' as const })));
    report.keysLifted += r.keysLifted;
    report.keysKept += r.keysKept;
    report.notices.cancelled += r.notices.cancelled;
    report.notices.underWay += r.notices.underWay;
    report.notices.handedOver += r.notices.handedOver;
    report.notices.alreadySent += r.notices.alreadySent;
  }
  return report;
}

/** The ids to reverse; those that cannot be go to the report's refusals (a key's range lists only what it can reverse). */
async function candidatesOf(optOuts: OptOuts, target: ReversalTarget, report: ReversalReport): Promise<string[]> {
  if ('apiKeyId' in target) {
    const listed = await optOuts.byKey(target.apiKeyId, target.since, target.until, KEY_RANGE_MAX);
    return listed.filter((o) => refusalOf(o) === null).map((o) => o.id);
  }
  const ids = [...new Set(target.ids)];
  const found = new Map<string, ListedOptOut>((await optOuts.byIds(ids)).map((o) => [o.id, o]));
  const candidates: string[] = [];
  for (const id of ids) {
    const why = refusalOf(found.get(id));
    if (why === null) candidates.push(id);
    else report.refused.push({ id, why });
  }
  return candidates;
}

const refusalOf = (o: ListedOptOut | undefined) => reversalRefusal(o && { source: o.source, reversedAt: o.reversal?.at ?? null });
