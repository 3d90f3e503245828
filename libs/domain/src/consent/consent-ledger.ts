import canonicalize from 'canonicalize';
import type { Lead } from '../lead-input';
import { sha256Hex } from '../normalize/normalize';
import type { PersonKeySecret } from '../normalize/person-key';
import { optOutKeysOf } from '../opt-outs/opt-outs';
import type { TestMode } from '../test-mode/test-mode';
import type { IpSource, LeadKind } from '../vocabulary/lead';

/**
 * The consent ledger (docs/consent-ledger.md): every consent event of a live
 * lead is a record in one hash chain, so that a record changed, removed,
 * inserted or moved after the fact is detected, and a record can be shown to
 * someone outside (a consumer's lawyer, their expert) with a proof they check
 * with `sha256sum` alone.
 *
 *   record text  = the record in RFC 8785 JSON Canonicalization Scheme (JCS), UTF-8
 *   record hash  = sha256(record text), lower-case hex
 *   digest       = sha256(previous digest + record hash), both as 64 lower-case hex
 *                  characters (128 ASCII characters, nothing between, no newline)
 *   the first record's previous digest is GENESIS (64 zeros)
 *
 * Contact data enter a record only as the person keys the duplicate rule
 * uses (HMAC under the server secret of the normalized SHA-256: person-key.ts),
 * so erasing a person's contact data later never changes a record, and
 * checking the chain needs no secret. Records chained before person keys were
 * keyed are in form 1 and hold the plain SHA-256 (email_sha256, phone_sha256):
 * their bytes are sealed, so they stay as they were chained.
 */

/** The previous digest of the chain's first record. */
export const GENESIS = '0'.repeat(64);

/** The canonical form's name and version: a record says which form it is in. Records chained now are in form 2. */
export const CONSENT_RECORD_FORM = 'lead-router/consent-record/2';
/** The form of the records chained before person keys were keyed: the plain SHA-256 of the email and phone. */
export const CONSENT_RECORD_FORM_1 = 'lead-router/consent-record/1';

/** One consent event as the chain holds it (the keys are the canonical form's). */
export type ConsentRecord = ConsentRecordFacts &
  (
    | {
        form: typeof CONSENT_RECORD_FORM;
        /** The person key of the email: HMAC-SHA-256(secret, sha256 of the normalized email), null when the lead had none. */
        email_key: string | null;
        /** The person key of the phone (its 10 US digits), null when the lead had none. */
        phone_key: string | null;
      }
    | {
        form: typeof CONSENT_RECORD_FORM_1;
        /** sha256 of the normalized email (docs/duplicates.md), null when the lead had none. */
        email_sha256: string | null;
        /** sha256 of the normalized phone (its 10 US digits), null when the lead had none. */
        phone_sha256: string | null;
      }
  );

/** What every form of a record holds besides the person's keys. */
export interface ConsentRecordFacts {
  /** Its place in the chain, from 1. */
  position: number;
  /** The submit's or direct post's svc_lead_id. */
  lead_id: string;
  kind: LeadKind;
  /** The search a result submit was made on (null for a direct post). */
  search_id: string | null;
  affiliate_id: string;
  campaign_id: string;
  offer_id: string;
  school_id: string | null;
  program_id: string | null;
  /** The consumer's decision as sent with the submit (a refusal to consent is an event too). */
  tcpa_consent: boolean;
  /** The statement exactly as shown with the result (the offer's on a direct post), not the catalog's text of today. */
  statement: string | null;
  button_label: string | null;
  ip: string;
  /** `consumer`, or `caller_server` when no valid consumer IP was sent and the caller's server address was recorded. */
  ip_source: IpSource;
  /** When the consumer consented (the submit's time), ISO 8601 UTC with milliseconds. */
  consented_at: string;
  form_cert_url: string | null;
  universal_lead_cert: string | null;
}

/** The record in its canonical form (RFC 8785): the exact text the record hash covers. */
export function recordText(record: ConsentRecord): string {
  const text = canonicalize(record);
  if (text === undefined) throw new Error('a consent record has no canonical form');
  return text;
}

export function recordHash(record: ConsentRecord): string {
  return sha256Hex(recordText(record));
}

/** The digest of a record whose hash is `recordHashHex`, after the record whose digest is `previous`. */
export function chainDigest(previous: string, recordHashHex: string): string {
  return sha256Hex(`${previous}${recordHashHex}`);
}

/** What a consent event stores beside its evidence so that it can be chained. */
export interface ConsentLedgerEntry {
  schoolId: string | null;
  emailKey: string | null;
  phoneKey: string | null;
}

/**
 * The ledger entry of a submit's consent evidence, or null when it is not
 * chained: test leads are never delivered, so no buyer ever relies on their
 * consent (test-mode.ts, `chainsConsent`).
 */
export function consentLedgerEntry(
  mode: TestMode,
  secret: PersonKeySecret,
  lead: Lead,
  schoolId: string | null,
): ConsentLedgerEntry | null {
  if (!mode.chainsConsent) return null;
  return { schoolId, ...contactKeys(secret, { email: lead.personal?.email, phone: lead.personal?.phone }) };
}

/** The person keys of an email and a phone, as the duplicate rule builds them (undefined or not normalizable: null). */
export function contactKeys(
  secret: PersonKeySecret,
  p: { email?: string; phone?: string },
): { emailKey: string | null; phoneKey: string | null } {
  const keys = optOutKeysOf(secret, p);
  return {
    emailKey: keys.find((k) => k.type === 'email')?.hash ?? null,
    phoneKey: keys.find((k) => k.type === 'phone')?.hash ?? null,
  };
}

/** A record as it is to be chained, and the link the chainer gives it. */
export interface ChainLink {
  seq: number;
  position: number;
  recordHash: string;
  prevDigest: string;
  digest: string;
}

/**
 * Links records (in the order given: the append order) after the chain's
 * head. `build` makes each record at its position.
 */
export function linkRecords<T extends { seq: number }>(
  head: { position: number; digest: string } | null,
  pending: readonly T[],
  build: (row: T, position: number) => ConsentRecord,
): ChainLink[] {
  let position = head?.position ?? 0;
  let previous = head?.digest ?? GENESIS;
  return pending.map((row) => {
    position += 1;
    const hash = recordHash(build(row, position));
    const digest = chainDigest(previous, hash);
    const link = { seq: row.seq, position, recordHash: hash, prevDigest: previous, digest };
    previous = digest;
    return link;
  });
}

/** A chained record as stored: the link, and the record rebuilt from the tables now (null when its evidence is gone). */
export interface StoredLink {
  position: number;
  leadId: string;
  recordHash: string;
  prevDigest: string;
  digest: string;
  record: ConsentRecord | null;
}

/** Where the chain does not match, and how. */
export interface ChainBreak {
  position: number;
  /** The svc_lead_id of the record at that position (null when the record itself is missing). */
  leadId: string | null;
  problem: 'missing' | 'evidence-missing' | 'record-changed' | 'link-broken' | 'digest-changed' | 'seal-mismatch';
  detail: string;
}

/** Where a check of consecutive stored links stands: the last position and digest checked. */
export interface ChainCursor {
  position: number;
  digest: string;
}

/**
 * Checks stored links in position order after `cursor`: positions without
 * gaps, each record's hash recomputed from the record as stored now, each
 * previous digest equal to the digest before it, each digest recomputed.
 * Answers the new cursor, or the first break.
 */
export function checkLinks(cursor: ChainCursor, links: readonly StoredLink[]): { cursor: ChainCursor } | { break: ChainBreak } {
  let at = cursor;
  for (const l of links) {
    if (l.position !== at.position + 1) {
      return {
        break: {
          position: at.position + 1,
          leadId: null,
          problem: 'missing',
          detail: `no record at position ${at.position + 1}: the chain goes from position ${at.position} to ${l.position} (lead ${l.leadId})`,
        },
      };
    }
    if (l.prevDigest !== at.digest) {
      return {
        break: {
          position: l.position,
          leadId: l.leadId,
          problem: 'link-broken',
          detail: `its previous digest is not the digest of position ${at.position}: a record was removed, inserted or moved before it`,
        },
      };
    }
    if (!l.record) {
      return {
        break: {
          position: l.position,
          leadId: l.leadId,
          problem: 'evidence-missing',
          detail: 'its consent evidence (or its lead) is no longer stored',
        },
      };
    }
    if (recordHash(l.record) !== l.recordHash) {
      return {
        break: {
          position: l.position,
          leadId: l.leadId,
          problem: 'record-changed',
          detail: 'the record as stored now does not hash to the record hash it was chained with: its evidence or lead was changed',
        },
      };
    }
    if (chainDigest(l.prevDigest, l.recordHash) !== l.digest) {
      return {
        break: {
          position: l.position,
          leadId: l.leadId,
          problem: 'digest-changed',
          detail: 'its digest is not sha256(previous digest + record hash)',
        },
      };
    }
    at = { position: l.position, digest: l.digest };
  }
  return { cursor: at };
}

/** A daily seal: the chain's head when the day was over. */
export interface ConsentSeal {
  /** The UTC day sealed (YYYY-MM-DD). */
  day: string;
  /** How many records the chain held: the head's position. */
  count: number;
  headDigest: string;
  sealedAt: string;
}

/** The UTC day whose seal is due at `now` (yesterday), when it has not been made yet. */
export function sealDue(now: Date, lastSealDay: string | null): string | null {
  const yesterday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1)).toISOString().slice(0, 10);
  return lastSealDay !== null && lastSealDay >= yesterday ? null : yesterday;
}
