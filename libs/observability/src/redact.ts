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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A request URL as logged: the path only (a query string may carry anything),
 * with every segment that looks like contact data (an `@`, or seven digits or
 * more that are not a UUID) replaced, e.g. a caller's `GET /results/<email>`.
 */
export function logSafeUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const path = url.split(/[?#]/, 1)[0];
  return path
    .split('/')
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        /* keep the raw segment */
      }
      const contactLike = decoded.includes('@') || (!UUID.test(decoded) && decoded.replace(/\D/g, '').length >= 7);
      return contactLike ? '[redacted]' : segment;
    })
    .join('/');
}

/** An email address anywhere in a text. */
const EMAIL_IN_TEXT = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/**
 * A US phone number in a common spelling (5125550100, 512-555-0100, (512) 555-0100,
 * 512.555.0100, +1 512 555 0100), not part of a longer word, number or id, and
 * not a bare JSON number (preceded by `:`, `,` or `[`), which must stay valid JSON.
 */
const PHONE_IN_TEXT = /(?<![\w:,[\-.+(])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-]?)\d{3}[\s.-]?\d{4}(?![\w-])/g;

/**
 * PostgreSQL quotes the value it refused (`invalid input syntax for type uuid:
 * "…"`), whatever it was; in a serialized line the quotes are escaped (\").
 */
const QUOTED_BAD_INPUT = /(invalid input (?:syntax|value) for [\w ]+:) \\"[^"]*?\\"/g;

/**
 * The last line of defence, applied to every serialized log line (pino
 * `hooks.streamWrite`): email addresses and phone numbers that reached a log
 * through free text (an error message quoting a value, a URL) are replaced.
 * Keys are redacted by PII_KEYS first; names cannot be recognised by their
 * shape, so they rely on those keys (and on the canary test).
 */
export function scrubContactData(line: string): string {
  return line.replace(EMAIL_IN_TEXT, '[email]').replace(PHONE_IN_TEXT, '[phone]').replace(QUOTED_BAD_INPUT, '$1 [value]');
}

/**
 * pino `err` serializer: type, message, stack and code (and the same of its
 * cause). Other enumerable properties are left out: a TypeORM QueryFailedError
 * carries the query's parameters (a lead's JSON, say) and the driver's error.
 */
export function errorForLog(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return err;
  const code = (err as { code?: unknown }).code;
  return {
    type: err.constructor?.name ?? 'Error',
    message: err.message,
    stack: err.stack,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(err.cause !== undefined && depth < 3 ? { cause: errorForLog(err.cause, depth + 1) } : {}),
  };
}
