import { formatCount } from '../byte-size';
import { formatTable } from '../text-table';
import type { DeletionReport } from './delete-person';

/** What a deletion keeps by design (docs/deletion.md): no contact data, needed for money, reports and the law. */
const KEPT = 'sales, payouts, cap usage, counts, dedupe keys (hashes), offer decisions, the consent ledger';

/** What a destroyed data key reaches (docs/deletion.md). */
const SHREDDED = 'data keys destroyed: sealed contact data unreadable in rows, queued messages and backups';

/** `person delete --json`: the same facts as the text, stable snake_case keys; ids and counts only, never contact data. */
export function deletionJson(r: DeletionReport): unknown {
  return {
    dry_run: r.dryRun,
    keys: r.keyTypes,
    request: {
      id: r.request.id,
      received_at: r.request.receivedAt,
      recorded_now: r.request.recordedNow,
      suppressed: r.request.suppressed,
      notices: r.request.notices,
    },
    erased: {
      searches: { count: r.searches.erased, live: r.searches.live, test: r.searches.test, ids: r.searches.ids },
      partner_call_details: r.searches.partnerCallsMasked,
      leads: { count: r.leads.erased, ids: r.leads.ids },
      delivery_attempt_details: r.leads.deliveryAttemptsMasked,
      revocation_receipts: r.leads.receiptsMasked,
      return_notes: r.leads.returnNotesMasked,
      consent_evidence_ips: r.consentEvidence.ipErased,
      crypto_shredded: { searches: r.cryptoShredded.searches, leads: r.cryptoShredded.leads, dead_letters: r.cryptoShredded.deadLetters },
      redis_keys: r.redisKeys,
    },
    kept: { consent_evidence: r.consentEvidence.kept, consent_evidence_fields: r.consentEvidence.keptFields },
    nothing_new: nothingErased(r),
    redis_error: r.redisError,
    dead_letter_error: r.deadLetterError,
    scanned: { search_partitions: r.scanned.searchPartitions, searches: r.scanned.searches, leads: r.scanned.leads },
    took_ms: r.tookMs,
  };
}

/** `person delete` for a terminal: the request, what was erased per place (counts, then ids), what was kept. */
export function deletionLines(r: DeletionReport): string[] {
  const would = r.dryRun ? 'would be ' : '';
  const lines = [`Person delete${r.dryRun ? ' dry run (nothing changed)' : ''}, by ${r.keyTypes.join(' and ')}: ${requestLine(r)}`, ''];
  const ev = r.consentEvidence;
  const rows: string[][] = [
    ['searches', formatCount(r.searches.erased), `${r.searches.live} live, ${r.searches.test} test; their results expired`],
    ['partner call details', formatCount(r.searches.partnerCallsMasked), 'contact values masked'],
    ['leads', formatCount(r.leads.erased), ''],
    ['delivery attempt details', formatCount(r.leads.deliveryAttemptsMasked), "the buyer's words, contact values masked"],
    ['revocation receipts', formatCount(r.leads.receiptsMasked), 'contact values masked'],
    ['return notes', formatCount(r.leads.returnNotesMasked), "the school's words, contact values masked"],
    ['consent evidence IPs', formatCount(ev.ipErased), "test leads' (not chained)"],
    ['searches crypto-shredded', formatCount(r.cryptoShredded.searches), SHREDDED],
    ['leads crypto-shredded', formatCount(r.cryptoShredded.leads), SHREDDED],
    [
      'dead letters crypto-shredded',
      formatCount(r.cryptoShredded.deadLetters),
      r.deadLetterError === null ? 'messages parked before their record was stored' : 'the dead-letter queues were not searched',
    ],
    [
      'redis keys',
      r.redisKeys === null ? '-' : formatCount(r.redisKeys),
      r.redisKeys === null ? 'Redis not reached' : "the searches' states",
    ],
  ];
  lines.push(
    `${r.dryRun ? 'Would erase' : 'Erased'} (rows changed):`,
    ...formatTable([{ header: 'PLACE' }, { header: 'COUNT', align: 'right' }, { header: 'NOTE' }], rows, '  '),
  );
  if (r.searches.ids.length > 0) lines.push(`searches ${would}erased: ${r.searches.ids.join(', ')}`);
  if (r.leads.ids.length > 0) lines.push(`leads ${would}erased: ${r.leads.ids.join(', ')}`);
  lines.push('');
  if (ev.kept > 0) {
    lines.push(
      `Kept under a legal obligation: the consent evidence of ${formatCount(ev.kept)} lead${ev.kept === 1 ? '' : 's'}, whole (the consent record: ${ev.keptFields.join(', ')}).`,
    );
  }
  if (nothingErased(r))
    lines.push(`Nothing new to erase: no record of the person holds contact data${r.redisKeys === null ? ' in PostgreSQL' : ''}.`);
  lines.push(`Kept: ${KEPT} (docs/deletion.md).`);
  if (r.deadLetterError)
    lines.push(
      `The dead-letter queues could not be searched (${r.deadLetterError}): run the command again, or purge what is parked (ops dlq).`,
    );
  if (r.redisError)
    lines.push(`Redis could not be reached (${r.redisError}): the search states hold no contact data and expire within 24 h.`);
  lines.push(
    `Searched ${formatCount(r.scanned.searchPartitions)} search partitions (${formatCount(r.scanned.searches)} candidate searches) and ${formatCount(r.scanned.leads)} candidate leads in ${(r.tookMs / 1000).toFixed(1)} s.`,
  );
  return lines;
}

function requestLine(r: DeletionReport): string {
  const q = r.request;
  if (q.id === null) return 'no deletion request recorded yet (a real run records one, suppressing the person)';
  if (!q.recordedNow) return `deletion request ${q.id} recorded before, at ${q.receivedAt}`;
  return `deletion request ${q.id} recorded; ${q.suppressed} key${q.suppressed === 1 ? '' : 's'} newly suppressed, ${q.notices} revocation notice${q.notices === 1 ? '' : 's'} to buyers`;
}

function nothingErased(r: DeletionReport): boolean {
  return (
    r.searches.erased +
      r.leads.erased +
      r.searches.partnerCallsMasked +
      r.leads.deliveryAttemptsMasked +
      r.leads.receiptsMasked +
      r.leads.returnNotesMasked +
      r.cryptoShredded.searches +
      r.cryptoShredded.leads +
      r.cryptoShredded.deadLetters +
      (r.redisKeys ?? 0) ===
    0
  );
}
