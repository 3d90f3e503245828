import type { Lead } from '../lead-input';
import {
  normalizeBirthYear,
  normalizeDob,
  normalizeEmail,
  normalizeGradYear,
  normalizeIp,
  normalizeLastName,
  normalizePhone,
  normalizeZip,
  sha256Hex,
} from './normalize';
import { keyedPersonKey, type PersonKeySecret } from './person-key';

/** The keys a dupe-check caller may send hashed (affiliate-api.md, `hashed`). */
export const HASHED_KEYS = ['email', 'phone', 'last_name', 'zip', 'dob', 'birth_year', 'grad_year', 'ip'] as const;
export type HashedKey = (typeof HASHED_KEYS)[number];

const NORMALIZERS: Record<HashedKey, (raw: string) => string | undefined> = {
  email: normalizeEmail,
  phone: normalizePhone,
  last_name: normalizeLastName,
  zip: normalizeZip,
  dob: normalizeDob,
  birth_year: normalizeBirthYear,
  grad_year: normalizeGradYear,
  ip: normalizeIp,
};

/** The key's normalized form (the contract's table); undefined when the value cannot be normalized. */
export function normalizeKey(key: HashedKey, raw: string): string | undefined {
  return NORMALIZERS[key](raw);
}

/** SHA-256 hex of the key's normalized form; undefined when the value cannot be normalized. */
export function hashOf(key: HashedKey, raw: string): string | undefined {
  const normalized = normalizeKey(key, raw);
  return normalized === undefined ? undefined : sha256Hex(normalized);
}

export type DedupeKeyType = 'email' | 'phone' | 'name_zip_dob';
export interface DedupeKey {
  type: DedupeKeyType;
  hash: string;
}

/**
 * The person keys a duplicate decision looks up, from per-field hashes (the
 * contract's SHA-256): email, phone, and last name + ZIP + date of birth
 * together (built from the three hashes, so a caller who sends only hashes
 * yields the same key). Each is keyed under the server secret
 * (keyedPersonKey): this is where the contract's hashes become the person
 * keys that are stored and looked up. Order: email, phone, name_zip_dob.
 */
export function dedupeKeysFromHashes(secret: PersonKeySecret, h: Partial<Record<HashedKey, string>>): DedupeKey[] {
  const keys: DedupeKey[] = [];
  const key = (type: DedupeKeyType, sha256: string) => keys.push({ type, hash: keyedPersonKey(secret, sha256) });
  if (h.email) key('email', h.email);
  if (h.phone) key('phone', h.phone);
  if (h.last_name && h.zip && h.dob) key('name_zip_dob', sha256Hex(`${h.last_name}|${h.zip}|${h.dob}`));
  return keys;
}

/** Per-field hashes of a lead; fields missing or not normalizable are left out. birth_year comes from the date of birth. */
export function leadHashes(lead: Lead): Partial<Record<HashedKey, string>> {
  const dob = lead.personal?.date_of_birth;
  const raw: Partial<Record<HashedKey, string>> = {
    email: lead.personal?.email,
    phone: lead.personal?.phone,
    last_name: lead.personal?.last_name,
    zip: lead.address?.zip_code,
    dob,
    birth_year: dob === undefined ? undefined : normalizeDob(dob)?.slice(0, 4),
    grad_year: lead.education?.high_school_graduation_year,
  };
  const hashes: Partial<Record<HashedKey, string>> = {};
  for (const key of HASHED_KEYS) {
    const value = raw[key];
    const hash = value === undefined ? undefined : hashOf(key, value);
    if (hash !== undefined) hashes[key] = hash;
  }
  return hashes;
}

/** The duplicate keys of a lead: dedupeKeysFromHashes(secret, leadHashes(lead)), hashing only the fields the keys use. */
export function leadDedupeKeys(secret: PersonKeySecret, lead: Lead): DedupeKey[] {
  const hash = (key: HashedKey, value: string | undefined) => (value === undefined ? undefined : hashOf(key, value));
  const p = lead.personal;
  return dedupeKeysFromHashes(secret, {
    email: hash('email', p?.email),
    phone: hash('phone', p?.phone),
    last_name: hash('last_name', p?.last_name),
    zip: hash('zip', lead.address?.zip_code),
    dob: hash('dob', p?.date_of_birth),
  });
}
