import { newResult } from '@lr/persistence';

interface Queries {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/** A result to add to a stored search: an entry (without id and expiry, or a whole one), its expiry and partner data. */
export interface SeedResult {
  id: string;
  offerId: string;
  /** Entry fields shown besides the id and expiry (default: none). */
  entry?: Record<string, unknown>;
  expiresAt: Date;
  partnerData?: Record<string, unknown> | null;
}

/**
 * Appends results to a stored search, last in its order, the way the search
 * repository stores them (docs/storage.md): each entry's template in the
 * search's day partition, the id, template and expiry in the search's row.
 * For tests that seed a search with SQL.
 */
export async function appendResults(db: Queries, searchId: string, results: readonly SeedResult[]): Promise<void> {
  if (results.length === 0) return;
  const stored = results.map((r) => {
    const { svc_result_id: _id, expires_at: _expires, ...shown } = r.entry ?? {};
    const n = newResult({
      resultId: r.id,
      entry: {
        svc_result_id: r.id,
        ...shown,
        offer: { ...(shown.offer as object), id: r.offerId },
        expires_at: r.expiresAt.toISOString(),
      } as never,
      expiresAt: r.expiresAt,
      partnerData: null,
    });
    return { ...n, partner: r.partnerData ?? null };
  });
  await db.query(
    `WITH t AS (
       INSERT INTO result_templates (part_day, digest, offer_id, payout, body)
       SELECT s.part_day, x.digest, x.offer_id, x.payout, x.body
         FROM searches s, jsonb_to_recordset($2::jsonb) AS x(digest uuid, offer_id uuid, payout numeric, body text)
        WHERE s.id = $1
       ON CONFLICT DO NOTHING
     )
     UPDATE searches s
        SET result_order = s.result_order || $3::uuid[],
            result_templates = s.result_templates || $4::uuid[],
            result_expires = s.result_expires || $5::timestamptz[],
            result_partner = CASE WHEN $6::jsonb = '{}' THEN s.result_partner ELSE COALESCE(s.result_partner, '{}') || $6::jsonb END
      WHERE s.id = $1`,
    [
      searchId,
      JSON.stringify(
        stored.map((r) => ({ digest: r.template.digest, offer_id: r.offerId, payout: r.template.payout, body: r.template.body })),
      ),
      stored.map((r) => r.id),
      stored.map((r) => r.template.digest),
      stored.map((r) => r.expiresAt),
      JSON.stringify(Object.fromEntries(stored.filter((r) => r.partner !== null).map((r) => [r.id, r.partner]))),
    ],
  );
}
