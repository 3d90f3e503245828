import type { Queryable } from './queryable';

/** One person key as the duplicate rules look it up: `email`, `phone` or `name_zip_dob`, and its SHA-256 hex. */
export interface PersonKey {
  type: string;
  hash: string;
}

/*
 * The duplicate pre-check's two lookups (docs/duplicates.md). Both answer one
 * boolean with EXISTS, so PostgreSQL stops at the first matching row.
 *
 * The person's keys travel as two parallel arrays. The hashes are cast to
 * char(64)[] on purpose: `dedupe_keys.key_hash` is char(64), and comparing it
 * with a text value makes PostgreSQL cast the column (`key_hash::text = $x`),
 * which no index on the column serves. With char(64) on both sides the
 * (key_type, key_hash, …) indexes are used; the hashes are always 64
 * characters, so blank-padding semantics change nothing.
 *
 * Rows in `dedupe_keys` exist only for live leads whose sale is reserved or
 * accepted (the submit path writes them at reservation and deletes them when
 * the sale is released; a test lead never gets any), so neither query looks at
 * `leads` or `sales`.
 */

/**
 * Offer-scoped: the submit-time rule for one offer (offersAlreadySoldToPerson
 * in search-checks.query.ts), a key of the person on a row of that offer,
 * accepted within that offer's duplicate window. Served by either
 * (key_type, key_hash, …) index: ix_dedupe_keys_offer or
 * ix_dedupe_keys_accepted (a person has few rows under one key, so
 * PostgreSQL may pick either; both reach them in a few buffer reads).
 * $1 key types, $2 key hashes, $3 offer id.
 */
export const DUPE_CHECK_OFFER_SQL = `
  SELECT EXISTS (
    SELECT 1
      FROM unnest($1::text[], $2::char(64)[]) AS k(key_type, key_hash)
      JOIN offers o ON o.id = $3::uuid
      JOIN dedupe_keys d
        ON d.key_type = k.key_type AND d.key_hash = k.key_hash AND d.offer_id = o.id
     WHERE d.accepted_at > now() - make_interval(days => o.duplicate_window_days)
  ) AS duplicate`;

/**
 * Account-wide: a key of the person on a row of any offer that is on one of
 * the affiliate's campaigns (whoever sold it: the submit-time check is per
 * offer, not per seller), each row within its own offer's window. It walks
 * the person's rows through ix_dedupe_keys_accepted (key_type, key_hash, …)
 * — a person has few rows — and checks each row's offer by primary key and
 * ix_campaign_offers_offer_id, instead of listing every offer of the account.
 * $1 key types, $2 key hashes, $3 affiliate id.
 */
export const DUPE_CHECK_ACCOUNT_SQL = `
  SELECT EXISTS (
    SELECT 1
      FROM unnest($1::text[], $2::char(64)[]) AS k(key_type, key_hash)
      JOIN dedupe_keys d ON d.key_type = k.key_type AND d.key_hash = k.key_hash
      JOIN offers o ON o.id = d.offer_id
     WHERE d.accepted_at > now() - make_interval(days => o.duplicate_window_days)
       AND EXISTS (
             SELECT 1 FROM campaign_offers co JOIN campaigns c ON c.id = co.campaign_id
              WHERE co.offer_id = d.offer_id AND c.affiliate_id = $3::uuid)
  ) AS duplicate`;

/** The parameters of both statements: key types, key hashes, then the offer or affiliate id. */
export function dupeCheckParams(keys: PersonKey[], scopeId: string): [string[], string[], string] {
  return [keys.map((k) => k.type), keys.map((k) => k.hash), scopeId];
}

async function exists(db: Queryable, sql: string, keys: PersonKey[], scopeId: string): Promise<boolean> {
  if (keys.length === 0) return false;
  const rows: Array<{ duplicate: boolean }> = await db.query(sql, dupeCheckParams(keys, scopeId));
  return rows[0]?.duplicate === true;
}

/** Whether a submit of this person to this offer would very likely be refused as DUPLICATE. */
export function personSoldToOffer(db: Queryable, keys: PersonKey[], offerId: string): Promise<boolean> {
  return exists(db, DUPE_CHECK_OFFER_SQL, keys, offerId);
}

/** Whether a submit of this person to some offer on the affiliate's campaigns would very likely be refused as DUPLICATE. */
export function personSoldToAffiliateOffers(db: Queryable, keys: PersonKey[], affiliateId: string): Promise<boolean> {
  return exists(db, DUPE_CHECK_ACCOUNT_SQL, keys, affiliateId);
}
