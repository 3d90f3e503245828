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
