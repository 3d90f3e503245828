import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { isUUID } from 'class-validator';
import { checkLeadField, LEAD_GROUPS, parseIp } from '../../libs/domain/src';

/**
 * fast-check generators for hostile requests (test/e2e/hostile-input.e2e-spec.ts):
 * text from every corner of Unicode, values of the wrong type, ids that are
 * not ids, and "breaks": mutations of a valid request body that must each make
 * the gateway refuse it, with the refusal each one must produce.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a generated request body of any shape; hostile input is the point.

/** What a break must be refused with: HTTP status, code and (when known) the field the answer names. */
export interface Refusal {
  status: number;
  code: string;
  /** Acceptable `field` values; undefined: any (or none). */
  fields?: string[];
}

/** One mutation that makes a request invalid, on its own `target` (two breaks never touch the same part). */
export interface Break {
  name: string;
  target: string;
  apply: (body: Body) => void;
  refusals: Refusal[];
}

// eslint-disable-next-line no-control-regex -- NUL is the very character PostgreSQL refuses in text; matching it is the point.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Unicode that has hurt systems before: bidi overrides, zero-width and joiners, BOM, separators, combining marks, emoji, control characters, injection-looking text. */
export const NASTY = [
  '\u202e',
  '\u202d',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u2028',
  '\u2029',
  '\u00a0',
  '\u0085',
  '\u0001',
  '\u001b',
  '\u007f',
  'e\u0301\u0301',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  '\ud83d\ude00',
  'مرحبا',
  'שלום',
  '日本語',
  'Ω≈ç√',
  'ﷺ',
  '𒐫',
  '\\u0000',
  '%00',
  '%zz',
  '${x}',
  '{{7*7}}',
  "'; DROP TABLE leads;--",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '\r\n',
  '\t',
];

/** Well-formed text (encodable as UTF-8, no NUL) of at most `max` code units, from several corners of Unicode. */
export function text(max: number, min = 0): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.string({ unit: 'grapheme', minLength: min, maxLength: max }),
      fc.string({ unit: 'binary', minLength: min, maxLength: max }).map((s) => s.replace(UNSTORABLE, '')),
      fc.array(fc.constantFrom(...NASTY), { minLength: 1, maxLength: 4 }).map((a) => a.join('')),
    )
    .filter((s) => s.length >= min && s.length <= max);
}

/** Text PostgreSQL cannot store or UTF-8 cannot encode: a NUL or an unpaired surrogate somewhere. */
export const unstorableText: fc.Arbitrary<string> = fc
  .tuple(text(12), fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff'), text(12))
  .map(([a, bad, b]) => a + bad + b);

/** Keys for extra properties: never a field the contract names (prefixed), never one Fastify refuses (`__proto__`). */
export const extraKey: fc.Arbitrary<string> = text(30).map((s) => `x_${s}`);

/** Any JSON, rebuilt so it holds only storable text and no prototype-pollution keys (those are breaks of their own). */
export const safeJson: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 3, stringUnit: 'grapheme' }).map((v) => sanitize(v as Json));

function sanitize(v: Json): Json {
  if (typeof v === 'string') return v.replace(UNSTORABLE, '');
  if (Array.isArray(v)) return v.map(sanitize);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !['__proto__', 'constructor', 'prototype'].includes(k))
        .map(([k, x]) => [k.replace(UNSTORABLE, ''), sanitize(x)]),
    );
  }
  return v;
}

/** Extra properties that change nothing (the contract allows them): up to `max` keys of any safe JSON. */
export const extras = (max = 3): fc.Arbitrary<Record<string, Json>> => fc.dictionary(extraKey, safeJson, { maxKeys: max });

export const notString: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.array(safeJson, { maxLength: 3 }),
  fc.dictionary(extraKey, safeJson, { maxKeys: 3 }),
);
export const notBoolean: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.constantFrom('true', 'false', '1', '0', 'yes', ''),
  text(10),
  fc.array(safeJson, { maxLength: 3 }),
  fc.dictionary(extraKey, safeJson, { maxKeys: 2 }),
);
export const notObject: fc.Arbitrary<Json> = fc.oneof(fc.integer(), fc.boolean(), text(20), fc.array(safeJson, { maxLength: 3 }));

/** Strings that are not UUIDs, many of them nearly one. */
export const notUuid: fc.Arbitrary<string> = fc
  .oneof(
    text(60),
    fc.uuid().map((u) => u.replace(/-/g, '')),
    fc.uuid().map((u) => `{${u}}`),
    fc.uuid().map((u) => `${u}0`),
    fc.uuid().map((u) => u.slice(0, 35)),
    fc.uuid().map((u) => u.replace(/[0-9a-f]/, 'g')),
    fc.uuid().map((u) => ` ${u}`),
    fc.uuid().map((u) => `${u}\u200b`),
  )
  .filter((s) => !isUUID(s));

/** A required UUID field broken every way: missing, null, wrong type, not a UUID, or a UUID with its own refusal. */
export function uuidFieldBreak(
  field: string,
  refusalsForUuid: Array<[string, fc.Arbitrary<string>, Refusal]>,
  missing?: Refusal,
): fc.Arbitrary<Break> {
  const required: Refusal = missing ?? { status: 400, code: 'REQUIRED_FIELD_MISSING', fields: [field] };
  const invalid: Refusal = { status: 400, code: 'INVALID_FIELD', fields: [field] };
  return fc.oneof(
    fc.constant(breakOf(`${field} missing`, field, (b) => delete b[field], [required])),
    fc.constant(breakOf(`${field} null`, field, (b) => (b[field] = null), [required])),
    notString.map((v) => breakOf(`${field} of the wrong type`, field, (b) => (b[field] = v), [invalid])),
    notUuid.map((v) => breakOf(`${field} not a UUID`, field, (b) => (b[field] = v), [invalid])),
    unstorableText.map((v) => breakOf(`${field} unstorable`, field, (b) => (b[field] = v), [invalid])),
    ...refusalsForUuid.map(([name, ids, refusal]) => ({
      arbitrary: ids.map((v) => breakOf(`${field} ${name}`, field, (b) => (b[field] = v), [refusal])),
      weight: 2,
    })),
  );
}

export function breakOf(name: string, target: string, apply: (b: Body) => void, refusals: Refusal[]): Break {
  return { name, target, apply, refusals };
}

const FREE_TEXT = new Set(['personal.first_name', 'personal.last_name', 'address.address_line_1', 'address.city']);
const LEAD_PATHS = Object.entries(LEAD_GROUPS).flatMap(([g, fields]) => fields.map((f) => `${g}.${f}`));
const FLAT_ALIASES: Record<string, string> = {
  email: 'personal.email',
  phone: 'personal.phone',
  zip: 'address.zip_code',
  dob: 'personal.date_of_birth',
  state: 'address.state',
  hs_grad_year: 'education.high_school_graduation_year',
};

/** A value checkLeadField refuses for this field (LEAD-FIELDS.md): wrong type, empty, too long, unstorable, or (for a formatted or vocabulary field) any other text. */
function badLeadValue(path: string): fc.Arbitrary<Json> {
  const long = fc.string({ unit: 'grapheme-ascii', minLength: 201, maxLength: 260 }).map((s) => `x${s.replace(/\s/g, 'y')}x`);
  const options: Array<fc.Arbitrary<Json>> = [notString, fc.constantFrom('', '   ', '\t\n'), long];
  if (!FREE_TEXT.has(path)) options.push(text(40));
  return fc.oneof(...options).filter((v) => 'error' in checkLeadField(path, v));
}

/** Breaks inside `lead` (its field names as the answer must name them, under `prefix`). */
export function leadBreak(prefix = 'lead'): fc.Arbitrary<Break> {
  const invalid = (field: string): Refusal[] => [{ status: 400, code: 'INVALID_FIELD', fields: [field] }];
  return fc.oneof(
    fc.constantFrom(...LEAD_PATHS).chain((path) =>
      badLeadValue(path).map((v) => {
        const [g, f] = path.split('.');
        return breakOf(`${prefix}.${path} invalid`, prefix, (b) => (((b[prefix] ??= {})[g] ??= {})[f] = v), invalid(`${prefix}.${path}`));
      }),
    ),
    fc.constantFrom(...LEAD_PATHS).chain((path) =>
      unstorableText.map((v) => {
        const [g, f] = path.split('.');
        return breakOf(
          `${prefix}.${path} unstorable`,
          prefix,
          (b) => (((b[prefix] ??= {})[g] ??= {})[f] = v),
          invalid(`${prefix}.${path}`),
        );
      }),
    ),
    fc
      .constantFrom(...Object.keys(FLAT_ALIASES))
      .chain((flat) =>
        badLeadValue(FLAT_ALIASES[flat]).map((v) =>
          breakOf(`${prefix}.${flat} (flat) invalid`, prefix, (b) => ((b[prefix] ??= {})[flat] = v), invalid(`${prefix}.${flat}`)),
        ),
      ),
    // A flat key that contradicts its nested twin.
    fc.constant(
      breakOf(
        `${prefix}.email contradicts ${prefix}.personal.email`,
        prefix,
        (b) => {
          const lead = (b[prefix] ??= {});
          lead.personal = { ...lead.personal, email: 'ada@example.com' };
          lead.email = 'someone.else@example.org';
        },
        invalid(`${prefix}.email`),
      ),
    ),
    fc
      .constantFrom(...Object.keys(LEAD_GROUPS))
      .chain((group) =>
        notObject.map((v) =>
          breakOf(`${prefix}.${group} not an object`, prefix, (b) => ((b[prefix] ??= {})[group] = v), invalid(`${prefix}.${group}`)),
        ),
      ),
    notObject.map((v) => breakOf(`${prefix} not an object`, prefix, (b) => (b[prefix] = v), invalid(prefix))),
  );
}

/** Special-purpose addresses (LEAD-FIELDS.md: refused), and text that is no address at all. */
const SPECIAL_IPS = [
  '10.0.0.1',
  '172.16.5.4',
  '192.168.1.20',
  '100.64.3.3',
  '127.0.0.1',
  '169.254.1.1',
  '0.0.0.0',
  '224.0.0.1',
  '240.0.0.1',
  '255.255.255.255',
  '192.0.2.1',
  '198.51.100.7',
  '203.0.113.9',
  '::',
  '::1',
  'fe80::1',
  'fc00::1',
  'ff02::1',
  '2001:db8::5',
  '::ffff:127.0.0.1',
  '::ffff:10.0.0.1',
];

/** Breaks inside `tracking` (required with its ip_address on search and direct post). */
export function trackingBreak(): fc.Arbitrary<Break> {
  const t = 'tracking';
  const ip = `${t}.ip_address`;
  return fc.oneof(
    fc.constant(breakOf('tracking missing', t, (b) => delete b.tracking, [{ status: 400, code: 'REQUIRED_FIELD_MISSING', fields: [t] }])),
    fc.constant(breakOf('tracking null', t, (b) => (b.tracking = null), [{ status: 400, code: 'REQUIRED_FIELD_MISSING', fields: [t] }])),
    notObject.map((v) =>
      breakOf('tracking not an object', t, (b) => (b.tracking = v), [{ status: 400, code: 'INVALID_FIELD', fields: [t] }]),
    ),
    fc.constant(
      breakOf('ip_address missing', t, (b) => delete b.tracking.ip_address, [
        { status: 400, code: 'REQUIRED_FIELD_MISSING', fields: [ip] },
      ]),
    ),
    notString.map((v) =>
      breakOf('ip_address of the wrong type', t, (b) => (b.tracking.ip_address = v), [
        { status: 400, code: 'INVALID_FIELD', fields: [ip] },
      ]),
    ),
    fc
      .oneof(
        fc.constantFrom(...SPECIAL_IPS),
        text(40).filter((s) => s.trim() !== '' && !parseIp(s)?.publicUnicast),
      )
      .map((v) =>
        breakOf('ip_address not a public address', t, (b) => (b.tracking.ip_address = v), [
          { status: 400, code: 'INVALID_FIELD', fields: [ip] },
        ]),
      ),
    fc
      .tuple(extraKey, notString)
      .map(([k, v]) =>
        breakOf('a tracking value of the wrong type', t, (b) => (b.tracking[k] = v), [
          { status: 400, code: 'INVALID_FIELD', fields: [`${t}.${k}`] },
        ]),
      ),
    fc
      .tuple(extraKey, fc.integer({ min: 501, max: 2000 }))
      .map(([k, n]) =>
        breakOf('a tracking value over 500 characters', t, (b) => (b.tracking[k] = 'v'.repeat(n)), [
          { status: 400, code: 'INVALID_FIELD', fields: [`${t}.${k}`] },
        ]),
      ),
    fc
      .integer({ min: 101, max: 5000 })
      .map((n) =>
        breakOf('a tracking key over 100 characters', t, (b) => (b.tracking['k'.repeat(n)] = 'v'), [
          { status: 400, code: 'INVALID_FIELD', fields: [t] },
        ]),
      ),
    fc
      .integer({ min: 51, max: 200 })
      .map((n) =>
        breakOf(
          'more than 50 tracking keys',
          t,
          (b) => Object.assign(b.tracking, Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']))),
          [{ status: 400, code: 'INVALID_FIELD', fields: [t] }],
        ),
      ),
    fc
      .tuple(extraKey, unstorableText)
      .map(([k, v]) =>
        breakOf('a tracking value unstorable', t, (b) => (b.tracking[k] = v), [
          { status: 400, code: 'INVALID_FIELD', fields: [`${t}.${k}`] },
        ]),
      ),
  );
}

/** An optional field of a given type, sent with another type (or too long, or unstorable). */
export function optionalFieldBreak(field: string, type: 'boolean' | 'string', maxLength?: number): fc.Arbitrary<Break> {
  const invalid: Refusal[] = [{ status: 400, code: 'INVALID_FIELD', fields: [field] }];
  const options: Array<fc.Arbitrary<Break>> = [
    (type === 'boolean' ? notBoolean : notString).map((v) => breakOf(`${field} of the wrong type`, field, (b) => (b[field] = v), invalid)),
  ];
  if (type === 'string') options.push(unstorableText.map((v) => breakOf(`${field} unstorable`, field, (b) => (b[field] = v), invalid)));
  if (maxLength !== undefined) {
    options.push(
      fc
        .integer({ min: maxLength + 1, max: maxLength * 3 })
        .map((n) => breakOf(`${field} over ${maxLength} characters`, field, (b) => (b[field] = 'x'.repeat(n)), invalid)),
    );
  }
  return fc.oneof(...options);
}

/** A required object left out or sent as null. */
export function missingBreak(
  field: string,
  refusal: Refusal = { status: 400, code: 'REQUIRED_FIELD_MISSING', fields: [field] },
): fc.Arbitrary<Break> {
  return fc.constantFrom(
    breakOf(`${field} missing`, field, (b) => delete b[field], [refusal]),
    breakOf(`${field} null`, field, (b) => (b[field] = null), [refusal]),
  );
}

/** An extra property whose key or value holds unstorable text: refused, named by its path (U+FFFD where the key cannot be echoed). */
export const unstorableExtraBreak: fc.Arbitrary<Break> = fc.oneof(
  fc
    .tuple(extraKey, unstorableText)
    .map(([k, v]) =>
      breakOf('an extra value unstorable', `extra:${k}`, (b) => (b[k] = v), [{ status: 400, code: 'INVALID_FIELD', fields: [k] }]),
    ),
  fc
    .tuple(unstorableText, safeJson)
    .map(([k, v]) => breakOf('an extra key unstorable', 'extra-key', (b) => (b[k] = v), [{ status: 400, code: 'INVALID_FIELD' }])),
  fc.tuple(extraKey, fc.integer({ min: 0, max: 3 }), unstorableText).map(([k, depth, v]) => {
    let nested: Json = v;
    for (let i = 0; i < depth; i++) nested = i % 2 ? [nested] : { [`n${i}`]: nested };
    return breakOf('an unstorable string nested in an extra value', `extra:${k}`, (b) => (b[k] = nested), [
      { status: 400, code: 'INVALID_FIELD' },
    ]);
  }),
);

/**
 * 1 to `max` breaks on distinct targets, applied in order. Mostly one: only a
 * lone break shows its own refusal (the ownership and existence checks come
 * after validation), several show which check comes first.
 */
export function someBreaks(kinds: Array<fc.Arbitrary<Break>>, max = 3): fc.Arbitrary<Break[]> {
  const one = fc.oneof(...kinds);
  return fc.oneof(
    { arbitrary: one.map((b) => [b]), weight: 3 },
    {
      arbitrary: fc
        .array(one, { minLength: 2, maxLength: max })
        .map((breaks) => breaks.filter((b, i) => breaks.findIndex((o) => o.target === b.target) === i)),
      weight: 2,
    },
  );
}

/**
 * A whole body that is no request at all: not JSON, JSON that is not an
 * object, nested too deep, with a prototype-pollution key, with bytes that are
 * not UTF-8, or empty. Built from a valid body's JSON text where it helps.
 */
export function wholeBodyBreak(validJson: string): fc.Arbitrary<{ name: string; bytes: Buffer; refusal: Refusal }> {
  const malformed = (status = 400): Refusal => ({ status, code: 'MALFORMED_REQUEST' });
  const of = (name: string, bytes: Buffer | string, refusal = malformed()) => ({
    name,
    bytes: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'utf8'),
    refusal,
  });
  return fc.oneof(
    fc.integer({ min: 0, max: validJson.length - 1 }).map((n) => of('truncated JSON', validJson.slice(0, n))),
    fc
      .string({ unit: 'binary-ascii', maxLength: 60 })
      .filter((s) => !isJsonObject(s))
      .map((s) => of('text that is no JSON object', s)),
    fc
      .oneof(fc.array(safeJson, { maxLength: 3 }), fc.integer(), text(20), fc.boolean(), fc.constant(null))
      .map((v) => of('JSON that is not an object', JSON.stringify(v))),
    fc
      .integer({ min: 33, max: 5000 })
      .map((n) => of(`nested ${n} deep`, validJson.replace(/^\{/, `{"x_deep":${'['.repeat(n)}${']'.repeat(n)},`))),
    fc
      .integer({ min: 17, max: 2500 })
      .map((n) => of(`objects nested ${2 * n} deep`, validJson.replace(/^\{/, `{"x_deep":${'{"a":['.repeat(n)}${']}'.repeat(n)},`))),
    fc
      .constantFrom('{"__proto__":{"admin":true},', '{"constructor":{"prototype":{"admin":true}},')
      .map((p) => of(`prototype pollution ${p}`, validJson.replace(/^\{/, p))),
    fc
      .constantFrom('{"x_obj":{"__proto__":{"x":1}},', '{"x_obj":[{"constructor":{"prototype":{"x":1}}}],')
      .map((p) => of(`nested prototype pollution ${p}`, validJson.replace(/^\{/, p))),
    fc
      .uint8Array({ minLength: 1, maxLength: 8 })
      .filter((bytes) => !isUtf8(bytes))
      .map((bytes) =>
        of(
          'bytes that are not UTF-8 inside a string',
          Buffer.concat([Buffer.from('{"x_bytes":"'), Buffer.from(bytes), Buffer.from(`",${validJson.slice(1)}`)]),
        ),
      ),
    fc.constant(of('empty body', '')),
    fc.constant(of('whitespace body', ' \r\n\t ')),
  );
}

function isJsonObject(s: string): boolean {
  try {
    const v = JSON.parse(s);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}
