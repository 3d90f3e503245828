import {
  AFFILIATE_STATUSES,
  CAMPAIGN_STATUSES,
  CAP_PERIODS,
  CATALOG_DEFAULTS,
  DEFAULT_CAP_TIMEZONE,
  DELIVERY_ADAPTERS,
  OFFER_SOURCES,
  OFFER_STATUSES,
  OFFER_TYPES,
  PARTNER_ADAPTERS,
  QUESTION_TYPES,
  RESERVED_ANSWER_NAMES,
} from './catalog-vocabulary';
import type {
  Catalog,
  CatalogAffiliate,
  CatalogCampaign,
  CatalogCampaignOffer,
  CatalogCap,
  CatalogIssue,
  CatalogOffer,
  CatalogPartner,
  CatalogProgram,
  CatalogQuestion,
  CatalogSchool,
  DeliveryAnswerMatch,
  DeliveryResponseRules,
  DeliverySettings,
  JsonScalar,
  KnownCatalogRefs,
  LeadDocumentShape,
  QuestionOption,
} from './catalog.types';
import { LEAD_DOCUMENT_FIELDS, NO_KNOWN_REFS } from './catalog.types';
import { childPath, isPlainObject, JsonReader } from './json-reader';
import { readEligibility } from './validate-eligibility';

export interface CatalogValidation {
  /** The validated catalog; null when there is any issue. */
  catalog: Catalog | null;
  issues: CatalogIssue[];
}

const SECTIONS = ['affiliates', 'schools', 'partners', 'offers', 'campaigns'] as const;
type Section = (typeof SECTIONS)[number];

const NAME_MAX = 200;
const TEXT_MAX = 10000;
const QUESTION_NAME_RE = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Validates a whole catalog file (CATALOG.md) against itself and what the
 * database already holds (`known`). Every issue names its JSON path; the
 * catalog is returned only when there is none, so nothing half-valid is applied.
 */
export function validateCatalog(input: unknown, known: KnownCatalogRefs = NO_KNOWN_REFS): CatalogValidation {
  const r = new JsonReader();
  const root = r.object(input, '', SECTIONS, []);
  if (!root) return { catalog: null, issues: r.issues };

  const entries = <T>(section: Section, read: (v: unknown, path: string) => T | undefined): Array<Entry<T>> => {
    if (root[section] === undefined) return [];
    const arr = r.array(root[section], section);
    if (!arr) return [];
    return arr.map((v, i) => {
      const path = childPath(section, i);
      return { path, raw: v, value: read(v, path) };
    });
  };

  const affiliates = entries('affiliates', (v, p) => readAffiliate(r, v, p));
  const schools = entries('schools', (v, p) => readSchool(r, v, p));
  const partners = entries('partners', (v, p) => readPartner(r, v, p));
  const offers = entries('offers', (v, p) => readOffer(r, v, p));
  const campaigns = entries('campaigns', (v, p) => readCampaign(r, v, p));

  const ids = {
    affiliates: idsOf(r, affiliates, 'affiliates'),
    schools: idsOf(r, schools, 'schools'),
    partners: idsOf(r, partners, 'partners'),
    offers: idsOf(r, offers, 'offers'),
    campaigns: idsOf(r, campaigns, 'campaigns'),
  };

  checkOfferReferences(r, offers, ids, known);
  checkCampaignReferences(r, campaigns, offers, ids, known);

  if (r.issues.length > 0) return { catalog: null, issues: r.issues };
  return {
    catalog: {
      affiliates: affiliates.map((e) => e.value as CatalogAffiliate),
      schools: schools.map((e) => e.value as CatalogSchool),
      partners: partners.map((e) => e.value as CatalogPartner),
      offers: offers.map((e) => e.value as CatalogOffer),
      campaigns: campaigns.map((e) => e.value as CatalogCampaign),
    },
    issues: [],
  };
}

interface Entry<T> {
  path: string;
  raw: unknown;
  value: T | undefined;
}

/** Ids defined in a section (also of entries with other problems, so references to them do not add noise). */
function idsOf(r: JsonReader, list: Array<Entry<unknown>>, section: Section): Map<string, string> {
  const seen = new Map<string, string>();
  for (const e of list) {
    if (!isPlainObject(e.raw) || typeof e.raw.id !== 'string') continue;
    const id = e.raw.id.toLowerCase();
    const first = seen.get(id);
    if (first) r.fail(childPath(e.path, 'id'), `duplicate id ${id} in ${section} (also ${first})`);
    else seen.set(id, e.path);
  }
  return seen;
}

/** Reads a value and reports whether every read so far in this entry succeeded. */
function tracker(r: JsonReader) {
  const before = r.issues.length;
  return () => r.issues.length === before;
}

function readAffiliate(r: JsonReader, v: unknown, path: string): CatalogAffiliate | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, ['id', 'name', 'status', 'dupe_check'], ['id', 'name', 'status']);
  if (!o) return undefined;
  const out = {
    id: r.uuid(o.id, childPath(path, 'id')),
    name: r.string(o.name, childPath(path, 'name'), { maxLength: NAME_MAX }),
    status: r.oneOf(o.status, childPath(path, 'status'), AFFILIATE_STATUSES),
    dupe_check: o.dupe_check === undefined ? CATALOG_DEFAULTS.dupeCheck : r.boolean(o.dupe_check, childPath(path, 'dupe_check')),
  };
  return ok() ? (out as CatalogAffiliate) : undefined;
}

function readSchool(r: JsonReader, v: unknown, path: string): CatalogSchool | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, ['id', 'name', 'logo_url'], ['id', 'name']);
  if (!o) return undefined;
  const out = {
    id: r.uuid(o.id, childPath(path, 'id')),
    name: r.string(o.name, childPath(path, 'name'), { maxLength: NAME_MAX }),
    logo_url: o.logo_url === undefined || o.logo_url === null ? null : r.httpUrl(o.logo_url, childPath(path, 'logo_url')),
  };
  return ok() ? (out as CatalogSchool) : undefined;
}

function readPartner(r: JsonReader, v: unknown, path: string): CatalogPartner | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, ['id', 'name', 'adapter', 'base_url', 'timeout_ms'], ['id', 'name', 'adapter', 'base_url']);
  if (!o) return undefined;
  const out = {
    id: r.uuid(o.id, childPath(path, 'id')),
    name: r.string(o.name, childPath(path, 'name'), { maxLength: NAME_MAX }),
    adapter: r.oneOf(o.adapter, childPath(path, 'adapter'), PARTNER_ADAPTERS),
    base_url: r.httpUrl(o.base_url, childPath(path, 'base_url')),
    timeout_ms:
      o.timeout_ms === undefined ? CATALOG_DEFAULTS.partnerTimeoutMs : r.integer(o.timeout_ms, childPath(path, 'timeout_ms'), 100, 120000),
  };
  return ok() ? (out as CatalogPartner) : undefined;
}

const OFFER_KEYS = [
  'id',
  'name',
  'school_id',
  'source',
  'partner_id',
  'external_id',
  'offer_type',
  'status',
  'priority',
  'price',
  'tcpa_text',
  'result_ttl_seconds',
  'duplicate_window_days',
  'programs',
  'form_fields',
  'eligibility',
  'caps',
  'delivery',
] as const;

/** Keys a partner offer must not have: the partner supplies them in its answer (CATALOG.md). */
const PARTNER_SUPPLIED = ['delivery', 'programs', 'form_fields', 'price'] as const;

function readOffer(r: JsonReader, v: unknown, path: string): CatalogOffer | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, OFFER_KEYS, ['id', 'name', 'school_id', 'source', 'offer_type', 'status']);
  if (!o) return undefined;
  const p = (k: string) => childPath(path, k);
  const source = r.oneOf(o.source, p('source'), OFFER_SOURCES);
  if (source === 'partner') {
    for (const key of PARTNER_SUPPLIED) {
      if (o[key] !== undefined) r.fail(p(key), `not allowed on a partner offer (the partner supplies it in its answer)`);
    }
    if (o.partner_id === undefined) r.fail(p('partner_id'), 'is required on a partner offer');
    if (o.external_id === undefined) r.fail(p('external_id'), "is required on a partner offer (the partner's id of the offer)");
  }
  if (source === 'own') {
    if (o.partner_id !== undefined) r.fail(p('partner_id'), 'only a partner offer has a partner_id');
    if (o.delivery === undefined) r.fail(p('delivery'), 'is required on an own offer');
    if (o.price === undefined) r.fail(p('price'), 'is required on an own offer');
    if (o.tcpa_text === undefined) r.fail(p('tcpa_text'), 'is required on an own offer (the consent statement shown with its results)');
  }
  const programs = source === 'partner' ? [] : readPrograms(r, o.programs, p('programs'));
  const programValues = (programs ?? []).map((x) => x.value);
  const out = {
    id: r.uuid(o.id, p('id')),
    name: r.string(o.name, p('name'), { maxLength: NAME_MAX }),
    school_id: r.uuid(o.school_id, p('school_id')),
    source,
    partner_id: o.partner_id === undefined ? null : r.uuid(o.partner_id, p('partner_id')),
    external_id: o.external_id === undefined ? null : r.string(o.external_id, p('external_id'), { maxLength: NAME_MAX }),
    offer_type: r.oneOf(o.offer_type, p('offer_type'), OFFER_TYPES),
    status: r.oneOf(o.status, p('status'), OFFER_STATUSES),
    priority: o.priority === undefined ? CATALOG_DEFAULTS.priority : r.integer(o.priority, p('priority'), -1000000, 1000000),
    price: o.price === undefined ? null : r.money(o.price, p('price')),
    tcpa_text: o.tcpa_text === undefined ? null : r.string(o.tcpa_text, p('tcpa_text'), { maxLength: TEXT_MAX }),
    result_ttl_seconds:
      o.result_ttl_seconds === undefined
        ? CATALOG_DEFAULTS.resultTtlSeconds
        : r.integer(o.result_ttl_seconds, p('result_ttl_seconds'), 1, 86400),
    duplicate_window_days:
      o.duplicate_window_days === undefined
        ? CATALOG_DEFAULTS.duplicateWindowDays
        : r.integer(o.duplicate_window_days, p('duplicate_window_days'), 0, 3650),
    eligibility: readEligibility(r, o.eligibility, p('eligibility')),
    programs,
    form_fields: source === 'partner' ? [] : readQuestions(r, o.form_fields, p('form_fields'), programs ? programValues : undefined),
    caps: readCaps(r, o.caps, p('caps')),
    delivery: null as DeliverySettings | null | undefined,
  };
  if (source === 'own' && o.delivery !== undefined) {
    // Read last, so field_map sources can be checked against this offer's questions (unless those are broken).
    out.delivery = readDelivery(r, o.delivery, p('delivery'), out.form_fields?.map((q) => q.name));
  }
  return ok() ? (out as CatalogOffer) : undefined;
}

type Unique = (key: string | undefined, at: string, duplicateMessage: string) => void;

/**
 * An array of objects at `path`: each item must be an object with the given
 * keys and is read by `item`, which may call `unique` to report a key repeated
 * within this array. Undefined when anything in the list failed.
 */
function readObjectList<T>(
  r: JsonReader,
  arr: unknown[] | undefined,
  path: string,
  keys: { allowed: readonly string[]; required: readonly string[] },
  item: (o: Record<string, unknown>, itemPath: string, unique: Unique) => T,
): T[] | undefined {
  if (!arr) return undefined;
  const ok = tracker(r);
  const seen = new Map<string, string>();
  const unique: Unique = (key, at, duplicateMessage) => {
    if (key === undefined) return;
    const first = seen.get(key);
    if (first) r.fail(at, `${duplicateMessage} (also ${first})`);
    else seen.set(key, at);
  };
  const out = arr.map((raw, i) => {
    const ip = childPath(path, i);
    const o = r.object(raw, ip, keys.allowed, keys.required);
    return o ? item(o, ip, unique) : undefined;
  });
  return ok() ? (out as T[]) : undefined;
}

function readPrograms(r: JsonReader, v: unknown, path: string): CatalogProgram[] | undefined {
  if (v === undefined) return [];
  const keys = { allowed: ['value', 'label', 'eligibility'], required: ['value', 'label'] };
  return readObjectList(r, r.array(v, path), path, keys, (o, ip, unique) => {
    const value = r.string(o.value, childPath(ip, 'value'), { maxLength: NAME_MAX });
    unique(value, childPath(ip, 'value'), `duplicate program value ${JSON.stringify(value)}`);
    return {
      value,
      label: r.string(o.label, childPath(ip, 'label'), { maxLength: NAME_MAX }),
      eligibility: readEligibility(r, o.eligibility, childPath(ip, 'eligibility')),
    } as CatalogProgram;
  });
}

/** `programValues` undefined: the offer's programs are broken, so required_when is not cross-checked. */
function readQuestions(r: JsonReader, v: unknown, path: string, programValues: string[] | undefined): CatalogQuestion[] | undefined {
  if (v === undefined) return [];
  const keys = { allowed: ['name', 'label', 'type', 'required', 'required_when', 'options'], required: ['name', 'type', 'required'] };
  return readObjectList(r, r.array(v, path), path, keys, (o, ip, unique) => {
    const p = (k: string) => childPath(ip, k);
    const name = r.string(o.name, p('name'), {
      pattern: QUESTION_NAME_RE,
      patternHint: `must be lower-case letters, digits and _ starting with a letter (at most 64), got ${JSON.stringify(o.name)}`,
    });
    if (name !== undefined && (RESERVED_ANSWER_NAMES as readonly string[]).includes(name)) {
      r.fail(p('name'), `${JSON.stringify(name)} is a field of the submit request and cannot name a question`);
    }
    unique(name, p('name'), `duplicate question name ${JSON.stringify(name)}`);
    const type = r.oneOf(o.type, p('type'), QUESTION_TYPES);
    let options: QuestionOption[] | null | undefined = null;
    if (type === 'select' && o.options === undefined) r.fail(p('options'), 'is required on a select question');
    else if (o.options !== undefined && type !== undefined && type !== 'select') r.fail(p('options'), 'only a select question has options');
    else if (o.options !== undefined) options = readOptions(r, o.options, p('options'));
    return {
      name,
      label: r.optionalString(o.label, p('label'), { maxLength: TEXT_MAX }),
      type,
      required: r.boolean(o.required, p('required')),
      required_when: o.required_when === undefined || o.required_when === null ? null : readRequiredWhen(r, o.required_when, p('required_when'), programValues),
      options,
    } as CatalogQuestion;
  });
}

function readOptions(r: JsonReader, v: unknown, path: string): QuestionOption[] | undefined {
  const keys = { allowed: ['value', 'label'], required: ['value', 'label'] };
  return readObjectList(r, r.array(v, path, { nonEmpty: true }), path, keys, (o, ip, unique) => {
    const value = r.string(o.value, childPath(ip, 'value'), { maxLength: NAME_MAX });
    unique(value, childPath(ip, 'value'), `duplicate option value ${JSON.stringify(value)}`);
    return { value, label: r.string(o.label, childPath(ip, 'label'), { maxLength: NAME_MAX }) } as QuestionOption;
  });
}

function readRequiredWhen(r: JsonReader, v: unknown, path: string, programValues: string[] | undefined): { program_ids: string[] } | undefined {
  const o = r.object(v, path, ['program_ids'], ['program_ids']);
  if (!o) return undefined;
  const p = childPath(path, 'program_ids');
  const arr = r.array(o.program_ids, p, { nonEmpty: true });
  if (!arr) return undefined;
  const ok = tracker(r);
  const ids = arr.map((item, i) => {
    const value = r.string(item, childPath(p, i));
    if (value !== undefined && programValues && !programValues.includes(value)) {
      r.fail(childPath(p, i), `unknown program ${JSON.stringify(value)}: not among this offer's programs (${programValues.join(', ') || 'none'})`);
    }
    return value;
  });
  return ok() ? { program_ids: ids as string[] } : undefined;
}

function readCaps(r: JsonReader, v: unknown, path: string): CatalogCap[] | undefined {
  if (v === undefined) return [];
  const keys = { allowed: ['period', 'limit', 'timezone'], required: ['period', 'limit'] };
  return readObjectList(r, r.array(v, path), path, keys, (o, ip, unique) => {
    const period = r.oneOf(o.period, childPath(ip, 'period'), CAP_PERIODS);
    unique(period, childPath(ip, 'period'), `duplicate cap period ${JSON.stringify(period)} for the same scope`);
    return {
      period,
      limit: r.integer(o.limit, childPath(ip, 'limit'), 0, 100000000),
      timezone: o.timezone === undefined ? DEFAULT_CAP_TIMEZONE : r.timezone(o.timezone, childPath(ip, 'timezone')),
    } as CatalogCap;
  });
}

/** Keys each delivery adapter reads: the sandbox protocol is fixed, so only the json adapter maps fields and reads rules. */
const DELIVERY_KEYS = {
  sandbox: ['adapter', 'url', 'timeout_ms', 'headers'],
  json: ['adapter', 'url', 'timeout_ms', 'headers', 'field_map', 'response_rules', 'idempotent'],
} as const;

function readDelivery(r: JsonReader, v: unknown, path: string, questions: string[] | undefined): DeliverySettings | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, DELIVERY_KEYS.json, ['adapter', 'url']);
  if (!o) return undefined;
  const p = (k: string) => childPath(path, k);
  const adapter = r.oneOf(o.adapter, p('adapter'), DELIVERY_ADAPTERS);
  if (adapter === 'sandbox') {
    for (const key of DELIVERY_KEYS.json) {
      if (o[key] !== undefined && !(DELIVERY_KEYS.sandbox as readonly string[]).includes(key)) {
        r.fail(p(key), 'only the json adapter reads it (the sandbox school protocol is fixed)');
      }
    }
  }
  const out: Record<string, unknown> = { adapter, url: r.httpUrl(o.url, p('url')) };
  if (o.timeout_ms !== undefined) out.timeout_ms = r.integer(o.timeout_ms, p('timeout_ms'), 100, 120000);
  if (o.headers !== undefined) out.headers = readDeliveryHeaders(r, o.headers, p('headers'));
  if (adapter === 'json' && o.field_map !== undefined) out.field_map = readFieldMap(r, o.field_map, p('field_map'), questions);
  if (adapter === 'json' && o.response_rules !== undefined) out.response_rules = readResponseRules(r, o.response_rules, p('response_rules'));
  if (adapter === 'json' && o.idempotent !== undefined) out.idempotent = r.boolean(o.idempotent, p('idempotent'));
  return ok() ? (out as unknown as DeliverySettings) : undefined;
}

const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers the adapter sets itself: the body is JSON, and Idempotency-Key is always the lead id. */
const ADAPTER_HEADERS = ['content-type', 'content-length', 'host', 'connection', 'transfer-encoding', 'idempotency-key'];
const ENV_REF_RE = /\$\{env:[A-Za-z_][A-Za-z0-9_]{0,99}\}/g;

function readDeliveryHeaders(r: JsonReader, v: unknown, path: string): Record<string, string> | undefined {
  const ok = tracker(r);
  const headers = r.stringMap(v, path);
  if (!headers) return undefined;
  const seen = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const at = childPath(path, name);
    const lower = name.toLowerCase();
    if (!HEADER_NAME_RE.test(name)) r.fail(at, "must be an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)");
    else if (ADAPTER_HEADERS.includes(lower)) r.fail(at, 'is set by the adapter and cannot be configured');
    else if (seen.has(lower)) r.fail(at, `repeats header ${seen.get(lower)} (header names are case-insensitive)`);
    seen.set(lower, name);
    if (!/^[\t\x20-\x7e]*$/.test(value)) r.fail(at, 'must be printable ASCII (no line breaks or control characters)');
    else if (value.replace(ENV_REF_RE, '').includes('${')) {
      r.fail(at, 'has a "${" that is not an environment reference ${env:NAME} (NAME: letters, digits and _)');
    }
  }
  return ok() ? headers : undefined;
}

const MAX_FIELD_MAP_ENTRIES = 200;
const MAX_PATH_DEPTH = 10;
/** Keys that would reach an object's prototype when the school's body is built. */
const UNSAFE_KEYS = ['__proto__', 'constructor', 'prototype'];

/** A dotted path (`contact.email`, `errors.0.message`): 1 to 10 non-empty segments of at most 100 characters. */
function readDottedPath(r: JsonReader, v: unknown, path: string): string | undefined {
  const s = r.string(v, path, { maxLength: 1000 });
  if (s === undefined) return undefined;
  const segments = s.split('.');
  if (segments.length > MAX_PATH_DEPTH) return r.fail(path, `must be a dotted path of at most ${MAX_PATH_DEPTH} parts`);
  if (segments.some((x) => x === '' || x.length > 100)) return r.fail(path, `must be a dotted path of non-empty parts of at most 100 characters, got ${JSON.stringify(s)}`);
  const unsafe = segments.find((x) => UNSAFE_KEYS.includes(x));
  if (unsafe) return r.fail(path, `must not use ${unsafe} as a key`);
  return s;
}

function readFieldMap(r: JsonReader, v: unknown, path: string, questions: string[] | undefined): Record<string, string> | undefined {
  if (!isPlainObject(v)) return r.fail(path, 'must be an object of target path (in the school\'s body) to source');
  const entries = Object.entries(v);
  if (entries.length === 0) return r.fail(path, 'must not be empty (leave field_map out to send the default lead document)');
  if (entries.length > MAX_FIELD_MAP_ENTRIES) return r.fail(path, `must have at most ${MAX_FIELD_MAP_ENTRIES} entries`);
  const ok = tracker(r);
  const out: Record<string, string> = {};
  const targets: string[] = [];
  for (const [target, rawSource] of entries) {
    const at = childPath(path, target);
    if (readDottedPath(r, target, at) !== undefined) {
      const clash = targets.find((t) => t.startsWith(`${target}.`) || target.startsWith(`${t}.`));
      if (clash) r.fail(at, `conflicts with target ${JSON.stringify(clash)}: one value cannot also hold fields`);
      targets.push(target);
    }
    const source = r.string(rawSource, at, { maxLength: 2000 });
    if (source !== undefined && checkFieldSource(r, source, at, questions)) out[target] = source;
  }
  return ok() ? out : undefined;
}

const LEAD_DOCUMENT_KEY_RE = /^[A-Za-z0-9_-]{1,100}$/;

/** A literal `=text`, or a path in the default lead document (LEAD_DOCUMENT_FIELDS). */
function checkFieldSource(r: JsonReader, source: string, at: string, questions: string[] | undefined): boolean {
  if (source.startsWith('=')) return true;
  const invalid = (why: string) => r.fail(at, `invalid source ${JSON.stringify(source)}: ${why} (a literal is written =text)`) ?? false;
  const segments = source.split('.');
  let shape: LeadDocumentShape = LEAD_DOCUMENT_FIELDS;
  for (const [i, segment] of segments.entries()) {
    const parent = segments.slice(0, i).join('.') || 'the lead document';
    if (shape === true) return invalid(`${parent} is a value and has no fields`);
    if (shape === 'any-key') {
      if (i < segments.length - 1) return invalid(`${parent}.${segment} is a value and has no fields`);
      if (!LEAD_DOCUMENT_KEY_RE.test(segment)) return invalid(`${JSON.stringify(segment)} is not a key of ${parent}`);
      if (parent === 'answers' && questions && !questions.includes(segment)) {
        return invalid(`${JSON.stringify(segment)} is not among this offer's form_fields (${questions.join(', ') || 'none'})`);
      }
      return true;
    }
    if (!Object.hasOwn(shape, segment)) return invalid(`${parent} has no field ${JSON.stringify(segment)} (fields: ${Object.keys(shape).join(', ')})`);
    shape = shape[segment];
  }
  return true;
}

const OUTCOME_RULES = ['accepted', 'duplicate', 'rejected'] as const;
const RULE_PATHS = ['buyer_lead_id_path', 'reason_path'] as const;

function readResponseRules(r: JsonReader, v: unknown, path: string): DeliveryResponseRules | undefined {
  const o = r.object(v, path, [...OUTCOME_RULES, ...RULE_PATHS], ['accepted']);
  if (!o) return undefined;
  const ok = tracker(r);
  const out: Record<string, unknown> = {};
  for (const key of OUTCOME_RULES) {
    if (o[key] === undefined) continue;
    const at = childPath(path, key);
    if (!Array.isArray(o[key])) out[key] = readAnswerMatch(r, o[key], at);
    else if (o[key].length === 0) r.fail(at, 'must not be empty');
    else out[key] = o[key].map((m: unknown, i: number) => readAnswerMatch(r, m, childPath(at, i)));
  }
  for (const key of RULE_PATHS) {
    if (o[key] !== undefined) out[key] = readDottedPath(r, o[key], childPath(path, key));
  }
  return ok() ? (out as unknown as DeliveryResponseRules) : undefined;
}

function readAnswerMatch(r: JsonReader, v: unknown, path: string): DeliveryAnswerMatch | undefined {
  const o = r.object(v, path, ['http_status', 'path', 'in', 'exists'], []);
  if (!o) return undefined;
  const p = (k: string) => childPath(path, k);
  const ok = tracker(r);
  if (o.http_status === undefined && o.path === undefined) r.fail(path, 'must name http_status, path or both');
  if (o.path !== undefined && (o.in === undefined) === (o.exists === undefined)) r.fail(path, 'a path needs exactly one of in or exists');
  if (o.path === undefined && (o.in !== undefined || o.exists !== undefined)) r.fail(path, 'in and exists need a path');
  const out: DeliveryAnswerMatch = {};
  if (o.http_status !== undefined) {
    const statuses = r.array(o.http_status, p('http_status'), { nonEmpty: true });
    // A 5xx is always a failure of the school's system, and a 3xx is refused: only 2xx and 4xx answers are read.
    if (statuses) out.http_status = statuses.map((x, i) => r.integer(x, childPath(p('http_status'), i), 200, 499) as number);
  }
  if (o.path !== undefined) out.path = readDottedPath(r, o.path, p('path'));
  if (o.in !== undefined) {
    const values = r.array(o.in, p('in'), { nonEmpty: true });
    if (values && values.length > 50) r.fail(p('in'), 'must have at most 50 values');
    else if (values) out.in = values.map((x, i) => readJsonScalar(r, x, childPath(p('in'), i)) as JsonScalar);
  }
  if (o.exists !== undefined) out.exists = r.boolean(o.exists, p('exists'));
  return ok() ? out : undefined;
}

function readJsonScalar(r: JsonReader, v: unknown, path: string): JsonScalar | undefined {
  if (v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
  if (typeof v === 'string' && v.length <= 200) return v;
  return r.fail(path, 'must be a string (at most 200 characters), a number, a boolean or null');
}

function readCampaign(r: JsonReader, v: unknown, path: string): CatalogCampaign | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, ['id', 'affiliate_id', 'name', 'status', 'offers'], ['id', 'affiliate_id', 'name', 'status']);
  if (!o) return undefined;
  const p = (k: string) => childPath(path, k);
  const out = {
    id: r.uuid(o.id, p('id')),
    affiliate_id: r.uuid(o.affiliate_id, p('affiliate_id')),
    name: r.string(o.name, p('name'), { maxLength: NAME_MAX }),
    status: r.oneOf(o.status, p('status'), CAMPAIGN_STATUSES),
    offers: readCampaignOffers(r, o.offers, p('offers')),
  };
  return ok() ? (out as CatalogCampaign) : undefined;
}

function readCampaignOffers(r: JsonReader, v: unknown, path: string): CatalogCampaignOffer[] | undefined {
  if (v === undefined) return [];
  const keys = { allowed: ['offer_id', 'payout', 'program_payouts', 'caps'], required: ['offer_id'] };
  return readObjectList(r, r.array(v, path), path, keys, (o, ip, unique) => {
    const p = (k: string) => childPath(ip, k);
    const offerId = r.uuid(o.offer_id, p('offer_id'));
    unique(offerId, p('offer_id'), `offer ${offerId} is listed twice in this campaign`);
    let programPayouts: Record<string, number> | null | undefined = null;
    if (o.program_payouts !== undefined && o.program_payouts !== null) {
      const pp = p('program_payouts');
      if (!isPlainObject(o.program_payouts)) programPayouts = r.fail(pp, 'must be an object of program value to payout');
      else {
        programPayouts = {};
        for (const [key, amount] of Object.entries(o.program_payouts)) {
          const m = r.money(amount, childPath(pp, key));
          if (m !== undefined && programPayouts) programPayouts[key] = m;
        }
      }
    }
    return {
      offer_id: offerId,
      payout: o.payout === undefined || o.payout === null ? null : r.money(o.payout, p('payout')),
      program_payouts: programPayouts,
      caps: readCaps(r, o.caps, p('caps')),
    } as CatalogCampaignOffer;
  });
}

interface DefinedIds {
  affiliates: Map<string, string>;
  schools: Map<string, string>;
  partners: Map<string, string>;
  offers: Map<string, string>;
}

function checkOfferReferences(r: JsonReader, offers: Array<Entry<CatalogOffer>>, ids: DefinedIds, known: KnownCatalogRefs): void {
  const externalIds = new Map<string, string>();
  for (const e of offers) {
    const offer = e.value;
    if (!offer) continue;
    if (!ids.schools.has(offer.school_id) && !known.schoolIds.has(offer.school_id)) {
      r.fail(childPath(e.path, 'school_id'), `unknown school ${offer.school_id}: not in this file's schools nor in the database`);
    }
    if (offer.partner_id && !ids.partners.has(offer.partner_id) && !known.partnerIds.has(offer.partner_id)) {
      r.fail(childPath(e.path, 'partner_id'), `unknown partner ${offer.partner_id}: not in this file's partners nor in the database`);
    }
    if (offer.source === 'partner' && offer.partner_id && offer.external_id) {
      const key = `${offer.partner_id}\u0000${offer.external_id}`;
      const first = externalIds.get(key);
      if (first) r.fail(childPath(e.path, 'external_id'), `partner ${offer.partner_id} already has an offer with external_id ${JSON.stringify(offer.external_id)} (${first})`);
      else externalIds.set(key, e.path);
    }
  }
  // A partner offer already in the database and not redefined by this file keeps its external id.
  for (const [id, k] of known.offers) {
    if (ids.offers.has(id) || k.source !== 'partner' || !k.partnerId || !k.externalId) continue;
    const first = externalIds.get(`${k.partnerId}\u0000${k.externalId}`);
    if (first) r.fail(childPath(first, 'external_id'), `partner ${k.partnerId} already has offer ${id} with external_id ${JSON.stringify(k.externalId)} in the database`);
  }
}

function checkCampaignReferences(
  r: JsonReader,
  campaigns: Array<Entry<CatalogCampaign>>,
  offers: Array<Entry<CatalogOffer>>,
  ids: DefinedIds,
  known: KnownCatalogRefs,
): void {
  const fileOffers = new Map<string, CatalogOffer | undefined>();
  for (const e of offers) {
    if (isPlainObject(e.raw) && typeof e.raw.id === 'string') fileOffers.set(e.raw.id.toLowerCase(), e.value);
  }
  for (const e of campaigns) {
    const campaign = e.value;
    if (!campaign) continue;
    if (!ids.affiliates.has(campaign.affiliate_id) && !known.affiliateIds.has(campaign.affiliate_id)) {
      r.fail(childPath(e.path, 'affiliate_id'), `unknown affiliate ${campaign.affiliate_id}: not in this file's affiliates nor in the database`);
    }
    campaign.offers.forEach((co, i) => {
      const path = childPath(childPath(e.path, 'offers'), i);
      const inFile = fileOffers.has(co.offer_id);
      const dbOffer = known.offers.get(co.offer_id);
      if (!inFile && !dbOffer) {
        r.fail(childPath(path, 'offer_id'), `unknown offer ${co.offer_id}: not in this file's offers nor in the database`);
        return;
      }
      if (!co.program_payouts) return;
      // The file's definition wins; a broken one in the file is reported where it is.
      const offer = inFile ? fileOffers.get(co.offer_id) : undefined;
      if (inFile && !offer) return;
      const source = offer ? offer.source : dbOffer!.source;
      if (source === 'partner') return; // the partner supplies the programs in its answer
      const values = offer ? offer.programs.map((p) => p.value) : dbOffer!.programValues;
      for (const key of Object.keys(co.program_payouts)) {
        if (!values.includes(key)) {
          r.fail(
            childPath(childPath(path, 'program_payouts'), key),
            `unknown program ${JSON.stringify(key)} of offer ${co.offer_id} (programs: ${values.join(', ') || 'none'})`,
          );
        }
      }
    });
  }
}
