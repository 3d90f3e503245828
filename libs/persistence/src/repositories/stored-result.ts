import { createHash } from 'node:crypto';
import type { ResultEntry } from '@lr/contracts';

/**
 * What a result entry shows apart from its id and expiry (`result_templates`,
 * docs/storage.md): the entry's JSON text without `svc_result_id` and
 * `expires_at`, named by the first 128 bits of its SHA-256 (as a uuid).
 */
export interface ResultTemplateRow {
  digest: string;
  offerId: string;
  /** The entry's best payout as a decimal string; null when none is configured. */
  payout: string | null;
  body: string;
}

/** A result about to be stored: its entry as the affiliate sees it (serialized once), its template, its expiry and partner data. */
export interface NewResult {
  id: string;
  offerId: string;
  entryJson: Buffer;
  template: ResultTemplateRow;
  partnerData: { partnerId: string; partnerResultId: string; externalId: string } | null;
  expiresAt: Date;
}

/** A result as its maker built it (the domain's ResultCandidate has these). */
export interface ResultToStore {
  resultId: string;
  entry: ResultEntry;
  expiresAt: Date;
  partnerData: NewResult['partnerData'];
}

/**
 * A result's stored form: the template is the entry without its id and expiry
 * (in the entry's own key order), and the entry's text is rebuilt from it
 * exactly as `lr_result_entry` rebuilds it in PostgreSQL, so Redis, the
 * answer and a read from PostgreSQL give the same bytes.
 */
export function newResult(r: ResultToStore): NewResult {
  const { svc_result_id: _id, expires_at: _expires, ...shown } = r.entry;
  const body = JSON.stringify(shown);
  const offerId = r.entry.offer.id;
  return {
    id: r.resultId,
    offerId,
    entryJson: Buffer.from(entryText(r.resultId, body, r.expiresAt)),
    template: { digest: templateDigest(body), offerId, payout: r.entry.payout === undefined ? null : String(r.entry.payout), body },
    partnerData: r.partnerData,
    expiresAt: r.expiresAt,
  };
}

/** The entry's JSON text from its id, template body and expiry (the same text as `lr_result_entry`). */
export function entryText(id: string, body: string, expiresAt: Date): string {
  return `{"svc_result_id":"${id}",${body === '{}' ? '' : `${body.slice(1, -1)},`}"expires_at":"${expiresAt.toISOString()}"}`;
}

/** The first 128 bits of the SHA-256 of a template's text, as a uuid (as the migration computes it). */
export function templateDigest(body: string): string {
  const h = createHash('sha256').update(body, 'utf8').digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
