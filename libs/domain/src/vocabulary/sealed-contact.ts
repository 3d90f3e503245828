/**
 * A record's contact data encrypted (docs/security.md, Encryption at rest):
 * AES-256-GCM under the data key `key` (an id in the key store: never the key
 * itself, wrapped or not), bound to the record it belongs to (`of`: a
 * search's or a lead's id, with the key's id the authenticated data). Rows
 * and messages carry it as it is; only delivery, the partner submit and the
 * operator's explicit reads open it. Destroying its data key (a deletion)
 * leaves every copy unreadable.
 */
export interface SealedContact {
  of: string;
  key: string;
  /** base64: the 96-bit IV. */
  iv: string;
  /** base64: the ciphertext with its 128-bit tag. */
  data: string;
}

/** Every sealed contact document a JSON value holds, at any depth (a message body: a search's, a lead's, a partner entry's). */
export function sealedContactsIn(value: unknown): SealedContact[] {
  if (Array.isArray(value)) return value.flatMap(sealedContactsIn);
  if (!value || typeof value !== 'object') return [];
  const v = value as Record<string, unknown>;
  if (typeof v.of === 'string' && typeof v.key === 'string' && typeof v.iv === 'string' && typeof v.data === 'string')
    return [{ of: v.of, key: v.key, iv: v.iv, data: v.data }];
  return Object.values(v).flatMap(sealedContactsIn);
}
