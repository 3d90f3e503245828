import { LeadFieldError } from './lead-input';
import { parseIp } from './ip-address';

/** The tracking fields the contract names; other string keys are kept as sent. */
export const TRACKING_FIELDS = [
  'ip_address',
  'subid',
  'subid2',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'wbraid',
  'fbclid',
  'msclkid',
  'ttclid',
  'click_id',
] as const;

const MAX_TRACKING_VALUE = 500;
const MAX_TRACKING_KEYS = 50;
/** Keys are stored with their values: bounded like them (a 200 KB key used to be stored as is). */
const MAX_TRACKING_KEY = 100;

export interface Tracking {
  values: Record<string, string>;
  /** The consumer IP, normalized (first of a forwarded list; IPv4-mapped read as IPv4). */
  ip?: string;
}

/**
 * Checks `tracking` (contract: Tracking; LEAD-FIELDS.md: IP addresses): an
 * object of strings; `ip_address` required when `ipRequired`, and a public
 * unicast address when present.
 */
export function parseTracking(input: unknown, ipRequired: boolean, prefix = 'tracking'): { tracking: Tracking; errors: LeadFieldError[] } {
  const errors: LeadFieldError[] = [];
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { tracking: { values: {} }, errors: [{ field: prefix, code: 'INVALID_FIELD', message: `${prefix} must be an object` }] };
  }
  const values: Record<string, string> = {};
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > MAX_TRACKING_KEYS) {
    errors.push({ field: prefix, code: 'INVALID_FIELD', message: `${prefix} has more than ${MAX_TRACKING_KEYS} keys` });
  }
  for (const [k, v] of entries.slice(0, MAX_TRACKING_KEYS)) {
    if (k.length > MAX_TRACKING_KEY) {
      // Named by the object, not the key: the key is the problem and may be huge.
      const message = `${prefix} keys must be at most ${MAX_TRACKING_KEY} characters`;
      if (!errors.some((e) => e.message === message)) errors.push({ field: prefix, code: 'INVALID_FIELD', message });
      continue;
    }
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string') {
      errors.push({ field: `${prefix}.${k}`, code: 'INVALID_FIELD', message: `${prefix}.${k} must be a string` });
    } else if (v.length > MAX_TRACKING_VALUE) {
      errors.push({
        field: `${prefix}.${k}`,
        code: 'INVALID_FIELD',
        message: `${prefix}.${k} must be at most ${MAX_TRACKING_VALUE} characters`,
      });
    } else {
      values[k] = v.trim();
    }
  }
  const field = `${prefix}.ip_address`;
  const rawIp = values.ip_address;
  let ip: string | undefined;
  if (rawIp === undefined || rawIp === '') {
    if (ipRequired && !errors.some((e) => e.field === field)) {
      errors.push({ field, code: 'REQUIRED_FIELD_MISSING', message: `Missing field ${field}` });
    }
  } else {
    const parsed = parseIp(rawIp);
    if (!parsed) errors.push({ field, code: 'INVALID_FIELD', message: `${field} must be an IP address` });
    else if (!parsed.publicUnicast) {
      errors.push({
        field,
        code: 'INVALID_FIELD',
        message: `${field} must be the consumer's public address (private, shared and reserved addresses are refused)`,
      });
    } else ip = parsed.normalized;
  }
  return { tracking: { values, ip }, errors };
}
