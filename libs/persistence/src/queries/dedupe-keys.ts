import type { DedupeKey, LastSales } from '@lr/domain';

/**
 * The one statement shape of that question, as a subquery yielding
 * (offer_id, last_sold_at): `keys` is a relation of (key_type text, key_hash
 * char(64)) — two parallel array parameters, or a search's stored keys — and
 * `offerFilter` a condition on `d.offer_id`. The hashes are compared as
 * char(64), the column's type: as text, PostgreSQL would cast the column and
 * no index could serve the lookup. Served by ix_dedupe_keys_offer
 * (key_type, key_hash, offer_id): a person has few rows.
 */
export const LAST_SALES_TO_PERSON = (keys: string, offerFilter: string) =>
  `SELECT d.offer_id, max(d.accepted_at) AS last_sold_at
     FROM (${keys}) AS k(key_type, key_hash)
     JOIN dedupe_keys d ON d.key_type = k.key_type AND d.key_hash = k.key_hash::char(64)
    WHERE ${offerFilter}
    GROUP BY d.offer_id`;

/** The person's keys as two parallel array parameters. */
export const KEYS_FROM_PARAMS = (types: string, hashes: string) => `SELECT * FROM unnest(${types}::text[], ${hashes}::char(64)[])`;

/** The parameters of KEYS_FROM_PARAMS. */
export const keyParams = (keys: readonly DedupeKey[]): [string[], string[]] => [keys.map((k) => k.type), keys.map((k) => k.hash)];

/** Rows of LAST_SALES_TO_PERSON as a map. */
export function lastSalesOf(rows: ReadonlyArray<{ offer_id: string; last_sold_at: string | Date }> | null): LastSales {
  return new Map((rows ?? []).map((r) => [r.offer_id, new Date(r.last_sold_at)]));
}
