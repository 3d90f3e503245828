/**
 * Contact data never reaches a log line (DEVELOPERS.md: logs carry no raw email,
 * phone or name). These are the keys whose values are replaced, wherever they
 * stand in an object that is logged; pino applies the same list to its own output.
 */
export const PII_KEYS = [
  'email',
  'phone',
  'first_name',
  'last_name',
  'firstName',
  'lastName',
  'date_of_birth',
  'dob',
  'address_line_1',
  'address',
  'authorization',
  'x-api-key',
  'key',
] as const;

const PII = new Set<string>(PII_KEYS.map((k) => k.toLowerCase()));

/** pino `redact.paths`: each key at the top and up to four levels deep. */
export const PINO_REDACT_PATHS: string[] = PII_KEYS.flatMap((k) => {
  const seg = /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `["${k}"]`;
  const top = seg.startsWith('.') ? seg.slice(1) : seg;
  return [top, `*${seg}`, `*.*${seg}`, `*.*.*${seg}`, `*.*.*.*${seg}`];
});

/** A deep copy of `value` with every PII key's value replaced by "[redacted]". */
export function redactPii<T>(value: T, depth = 0): T {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactPii(v, depth + 1)) as unknown as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = PII.has(k.toLowerCase()) ? '[redacted]' : redactPii(v, depth + 1);
  }
  return out as T;
}
