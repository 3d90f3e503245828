import { OptOutKey, optOutKeysOf, PersonKeySecret } from '@lr/domain';

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/** A person as an operator names them: raw or hashed email and phone (a hashed key wins over the same raw key). */
export interface PersonArguments {
  email?: string;
  phone?: string;
  hashedEmail?: string;
  hashedPhone?: string;
}

/** How the arguments are named where they come from: the command line's options, or an import's columns. */
export const OPTION_NAMES: Record<keyof PersonArguments, string> = {
  email: '--email',
  phone: '--phone',
  hashedEmail: '--hashed-email',
  hashedPhone: '--hashed-phone',
};
export const COLUMN_NAMES: Record<keyof PersonArguments, string> = {
  email: 'email',
  phone: 'phone',
  hashedEmail: 'hashed_email',
  hashedPhone: 'hashed_phone',
};

/** The suppression keys of the arguments, or the problem with them (in words naming the option, never echoing the value). */
export function optOutKeysOfArguments(
  secret: PersonKeySecret,
  a: PersonArguments,
  names = OPTION_NAMES,
): { keys: OptOutKey[] } | { error: string } {
  for (const [option, value] of [
    [names.hashedEmail, a.hashedEmail],
    [names.hashedPhone, a.hashedPhone],
  ] as const) {
    if (value !== undefined && !SHA256_HEX.test(value)) return { error: `${option} must be a hex SHA-256 (64 characters)` };
  }
  const raw = new Map(optOutKeysOf(secret, { email: a.email, phone: a.phone }).map((k) => [k.type, k.hash]));
  for (const [option, value, type] of [
    [names.email, a.email, 'email'],
    [names.phone, a.phone, 'phone'],
  ] as const) {
    if (value !== undefined && !raw.has(type))
      return { error: `${option} cannot be normalized (${type === 'email' ? 'an address with @ and a domain' : 'ten US digits'})` };
  }
  const keys = optOutKeysOf(secret, { email: a.email, phone: a.phone }, { email: a.hashedEmail, phone: a.hashedPhone });
  return keys.length > 0
    ? { keys }
    : { error: `name the person: ${names.email}, ${names.phone}, ${names.hashedEmail} or ${names.hashedPhone}` };
}
