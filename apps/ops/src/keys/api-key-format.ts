import { randomBytes } from 'node:crypto';

/** A raw API key: `lr_` and 43 base64url characters (32 random bytes). */
export const API_KEY_RE = /^lr_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): string {
  return `lr_${randomBytes(32).toString('base64url')}`;
}

/** What listings show to recognise a key: its first 8 characters. */
export function keyPrefix(rawKey: string): string {
  return rawKey.slice(0, 8);
}
