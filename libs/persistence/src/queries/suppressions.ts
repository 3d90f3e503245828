/**
 * Whether any of the person's keys is suppressed now (embedded in the sale
 * facts): `keys` is a relation of (key_type, key_hash), as for the dedupe
 * index (KEYS_FROM_PARAMS, or a search's stored keys); only email and phone
 * keys can match.
 */
export const SUPPRESSED = (keys: string) =>
  `EXISTS (SELECT 1 FROM (${keys}) AS k(key_type, key_hash)
             JOIN suppressions sp ON sp.key_type = k.key_type AND sp.key_hash = k.key_hash::char(64))`;
