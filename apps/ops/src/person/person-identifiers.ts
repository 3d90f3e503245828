import { OptOutKey, optOutKeysFromHashes, optOutKeysOf } from '@lr/domain';

/** How the operator names the person: raw values (normalized and hashed as the duplicate keys are) or their hashes. */
export interface PersonOptions {
  email?: string[];
  phone?: string[];
  hashedEmail?: string[];
  hashedPhone?: string[];
}

/** The person as the erasure looks for them: their keys, and the raw values typed (to find them in free text too). */
export interface PersonIdentifiers {
  keys: OptOutKey[];
  typed: { emails: string[]; phones: string[] };
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * The person's keys from the command line, or what is wrong with it. An
 * error never repeats the value it refuses: the command prints no contact
 * data. One email and one phone at most (a deletion request is recorded as
 * one opt-out, which holds one of each).
 */
export function personIdentifiers(o: PersonOptions): PersonIdentifiers | { error: string } {
  const keys: OptOutKey[] = [];
  for (const [i, email] of (o.email ?? []).entries()) {
    const k = optOutKeysOf({ email });
    if (k.length === 0) return { error: `--email (${ordinal(i)}) is not an email address` };
    keys.push(...k);
  }
  for (const [i, phone] of (o.phone ?? []).entries()) {
    const k = optOutKeysOf({ phone });
    if (k.length === 0) return { error: `--phone (${ordinal(i)}) is not a US phone number (10 digits, optional +1)` };
    keys.push(...k);
  }
  for (const [option, type, values] of [['--hashed-email', 'email', o.hashedEmail], ['--hashed-phone', 'phone', o.hashedPhone]] as const) {
    for (const [i, hash] of (values ?? []).entries()) {
      if (!SHA256_HEX.test(hash)) return { error: `${option} (${ordinal(i)}) must be 64 hexadecimal characters (the SHA-256 of the normalized value)` };
      keys.push(...optOutKeysFromHashes({ [type]: hash }));
    }
  }
  const unique = [...new Map(keys.map((k) => [`${k.type}:${k.hash}`, k])).values()];
  if (unique.length === 0) return { error: 'name the person: --email, --phone, --hashed-email or --hashed-phone' };
  for (const type of ['email', 'phone'] as const) {
    if (unique.filter((k) => k.type === type).length > 1) return { error: `one ${type} per request (given several that differ): run the command once per ${type}` };
  }
  return { keys: unique, typed: { emails: o.email ?? [], phones: o.phone ?? [] } };
}

const ordinal = (i: number) => ['first', 'second', 'third'][i] ?? `#${i + 1}`;
