import { ConsentRecord, ConsentSeal } from '@lr/domain';

/**
 * The bundle's format name: consent-events.json says which format it is in.
 * Format 2 finds and states the person by their person keys (`person_keys`
 * says what they are); format 1, exported before person keys were keyed, by
 * the plain hashes. `consent verify-bundle` checks both.
 */
export const BUNDLE_FORMAT = 'lead-router/consent-bundle/2';
export const BUNDLE_FORMAT_1 = 'lead-router/consent-bundle/1';

/** The files of a bundle (docs/consent-ledger.md, "A dispute bundle"). */
export const BUNDLE_FILES = {
  events: 'consent-events.json',
  html: 'index.html',
  chain: 'chain.tsv',
  procedure: 'VERIFY.txt',
  sums: 'SHA256SUMS',
} as const;

export const recordFile = (position: number) => `records/${position}.json`;

/** One consent event in a bundle: the proven record, its proof, and what is shown beside it (not proven). */
export interface BundleEvent {
  position: number;
  lead_id: string;
  record_file: string;
  record: ConsentRecord;
  record_hash: string;
  prev_digest: string;
  digest: string;
  previous: { position: number; digest: string } | null;
  next: { position: number; record_hash: string; digest: string } | null;
  seal: { day: string; count: number; head_digest: string; sealed_at: string } | null;
  /** Not covered by the digest: the catalog's names and the lead's contact data as stored when exported. */
  context: {
    school_name: string | null;
    offer_name: string | null;
    campaign_name: string | null;
    affiliate_name: string | null;
    program_label: string | null;
    contact: { first_name: string | null; last_name: string | null; email: string | null; phone: string | null } | null;
  };
}

export type Bundle = BundleFacts &
  (
    | {
        format: typeof BUNDLE_FORMAT;
        /** The person keys the events were found by. */
        person: { email_key: string | null; phone_key: string | null };
        /** What a person key is, and why checking the bundle needs no secret (PERSON_KEYS_TEXT). */
        person_keys: string;
      }
    | { format: typeof BUNDLE_FORMAT_1; person: { email_sha256: string | null; phone_sha256: string | null } }
  );

/** What every format of a bundle holds besides how it states the person. */
export interface BundleFacts {
  exported_at: string;
  asked: { by: 'phone' | 'email' | 'lead'; value: string };
  canonical_form: string;
  chain_file: string;
  events: BundleEvent[];
  /** Consent events of the person appended but not chained yet when exported (not in this proof). */
  unchained_lead_ids: string[];
}

export const CANONICAL_FORM_TEXT =
  'Each record file is the record in RFC 8785 JSON Canonicalization Scheme, UTF-8, no trailing newline. ' +
  'record_hash = sha256 of the record file. digest = sha256 of the 128 ASCII characters prev_digest followed by record_hash (lower-case hex, nothing between, no newline). ' +
  'The first record of the chain has prev_digest = 64 zeros. A seal is the digest of the last record chained when its UTC day was over (count = its position).';

export const PERSON_KEYS_TEXT =
  'A record in form lead-router/consent-record/2 holds the email and phone only as person keys: email_key and phone_key are HMAC-SHA-256, ' +
  "keyed with the service's secret, of the sha256 of the normalized value as 64 lower-case hex characters " +
  "(printf '%s' <sha256 hex> | openssl dgst -sha256 -hmac <secret>). Checking the records, their digests, the chain and the seals needs no secret: " +
  'a key is bytes of its record like any other field. Showing that a key is a given email or phone needs the secret, which is never in a bundle: ' +
  "the service's operator computes the key (this export found the records by it) and can show the computation. " +
  'A record in form lead-router/consent-record/1, chained before person keys were keyed, holds email_sha256 and phone_sha256, the plain sha256 of the normalized value.';

export function sealJson(s: ConsentSeal | null): BundleEvent['seal'] {
  return s ? { day: s.day, count: s.count, head_digest: s.headDigest, sealed_at: s.sealedAt } : null;
}
