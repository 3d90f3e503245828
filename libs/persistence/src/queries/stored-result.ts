import { createHash } from 'node:crypto';
import type { ResultEntry } from '@lr/contracts';
import type { ResultShape } from '@lr/domain';

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
  /** What the entry shows, apart from its id and expiry, is a function of these alone; null or absent: it is not. */
  shape?: ResultShape | null;
}

/**
 * Templates already made, by the shape of their results (ResultToStore.shape):
 * an own offer's entries differ only in id and expiry from one search to the
 * next, and serializing and hashing each of a 46-offer answer's entries was a
 * tenth of the orchestrator's CPU per search. Weakly held by the catalog's
 * offer object, so a template lives as long as the catalog snapshot it was
 * made from (CATALOG_CACHE_MS) and a changed offer makes new ones.
 */
const templatesByShape = new WeakMap<ResultShape['offer'], Map<string, ResultTemplateRow>>();

/**
 * A result's stored form: the template is the entry without its id and expiry
 * (in the entry's own key order), and the entry's text is rebuilt from it
 * exactly as `lr_result_entry` rebuilds it in PostgreSQL, so Redis, the
 * answer and a read from PostgreSQL give the same bytes.
 */
export function newResult(r: ResultToStore): NewResult {
  const template = r.shape ? templateOfShape(r, r.shape) : templateOf(r.entry);
  return {
    id: r.resultId,
    offerId: template.offerId,
    entryJson: Buffer.from(entryText(r.resultId, template.body, r.expiresAt)),
    template,
    partnerData: r.partnerData,
    expiresAt: r.expiresAt,
  };
}

/** The template of an entry: the entry without its id and expiry, in its own key order. */
export function templateOf(entry: ResultEntry): ResultTemplateRow {
  const { svc_result_id: _id, expires_at: _expires, ...shown } = entry;
  const body = JSON.stringify(shown);
  return { digest: templateDigest(body), offerId: entry.offer.id, payout: entry.payout === undefined ? null : String(entry.payout), body };
}

function templateOfShape(r: ResultToStore, shape: ResultShape): ResultTemplateRow {
  let byPrograms = templatesByShape.get(shape.offer);
  if (!byPrograms) templatesByShape.set(shape.offer, (byPrograms = new Map()));
  let template = byPrograms.get(shape.programs);
  if (!template) byPrograms.set(shape.programs, (template = templateOf(r.entry)));
  return template;
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
