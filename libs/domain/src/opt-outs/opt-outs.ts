import type { Lead } from '../lead-input';
import { DedupeKey, dedupeKeysFromHashes, HashedKey, hashOf } from '../normalize/dedupe-keys';
import type { PersonKeySecret } from '../normalize/person-key';

/**
 * Opt-outs (docs/opt-outs.md). A consumer who says "stop" is suppressed by
 * the hashes of their normalized email and phone, the very normalization and
 * hashing of the duplicate keys (affiliate-api.md, "Normalization before
 * hashing"), keyed under the server secret as the duplicate keys are, so a
 * request by hashed phone suppresses a search that wrote the phone another
 * way. Name, ZIP and date of birth never suppress: too many
 * people share them.
 */
export const OPT_OUT_KEY_TYPES = ['email', 'phone'] as const;
export type OptOutKeyType = (typeof OPT_OUT_KEY_TYPES)[number];
export interface OptOutKey extends DedupeKey {
  type: OptOutKeyType;
}

/** Who recorded an opt-out: an affiliate over the API, an operator (`optout add`/`import`), or a deletion request (`person delete`). */
export const OPT_OUT_SOURCES = ['affiliate', 'operator', 'deletion'] as const;
export type OptOutSource = (typeof OPT_OUT_SOURCES)[number];

/**
 * The suppression keys of raw contact values, and of hashes sent instead
 * (a hashed key wins over the same raw key, as on the pre-check); a raw value
 * that cannot be normalized (an email without @, a nine-digit phone) gives none.
 */
export function optOutKeysOf(
  secret: PersonKeySecret,
  raw: { email?: string; phone?: string },
  hashed: Partial<Record<OptOutKeyType, string>> = {},
): OptOutKey[] {
  return optOutKeysFromHashes(secret, {
    email: hashed.email ?? hashIf('email', raw.email),
    phone: hashed.phone ?? hashIf('phone', raw.phone),
  });
}

/** The suppression keys of per-field hashes (SHA-256 hex of the normalized forms, any case): the duplicate keys of the email and phone. */
export function optOutKeysFromHashes(secret: PersonKeySecret, h: Partial<Record<OptOutKeyType, string>>): OptOutKey[] {
  return dedupeKeysFromHashes(secret, { email: h.email, phone: h.phone }) as OptOutKey[];
}

/** The keys a lead is checked against: its email and phone, in test mode too (a suppressed person's data is not processed at all). */
export function leadOptOutKeys(secret: PersonKeySecret, lead: Lead): OptOutKey[] {
  return optOutKeysOf(secret, { email: lead.personal?.email, phone: lead.personal?.phone });
}

function hashIf(key: HashedKey, value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : hashOf(key, value);
}

/**
 * Revocations must be honoured within ten business days: a buyer's notice is
 * due ten business days (Monday to Friday, in UTC) after the request was
 * received. Public holidays are not skipped, so the deadline is never later
 * than the one the rule sets.
 */
export const REVOCATION_BUSINESS_DAYS = 10;

export function revocationDueAt(receivedAt: Date, businessDays = REVOCATION_BUSINESS_DAYS): Date {
  const due = new Date(receivedAt.getTime());
  let left = businessDays;
  while (left > 0) {
    due.setUTCDate(due.getUTCDate() + 1);
    const day = due.getUTCDay();
    if (day !== 0 && day !== 6) left--;
  }
  return due;
}

/** A notice not acknowledged by its due time is overdue. */
export const isOverdue = (notice: { dueAt: Date; acknowledgedAt: Date | null }, now: Date): boolean =>
  notice.acknowledgedAt === null && notice.dueAt.getTime() < now.getTime();

/** An opt-out as recorded: who and when, the person's keys, and when the buyers' notices are due. */
export interface OptOutRecord {
  id: string;
  receivedAt: Date;
  dueAt: Date;
  source: OptOutSource;
  affiliateId: string | null;
  apiKeyId: string | null;
  reference: string | null;
  keys: OptOutKey[];
  actor: string;
  /**
   * Which system's delivery service relays its notices (that system's message
   * prefix): systems sharing one database with prefixes of their own (a test
   * suite's files, a blue/green pair) each relay their own opt-outs.
   */
  relay: string;
}

/** The record of an opt-out received at `receivedAt`: its notices are due ten business days later. */
export function optOutRecord(r: Omit<OptOutRecord, 'dueAt'>): OptOutRecord {
  if (r.keys.length === 0) throw new Error('an opt-out needs an email or a phone key');
  return { ...r, dueAt: revocationDueAt(r.receivedAt) };
}
