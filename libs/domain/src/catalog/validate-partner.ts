import { PARTNER_SEARCH_DOCUMENT_FIELDS, PARTNER_SUBMIT_DOCUMENT_FIELDS } from '../mapping/documents';
import { SEARCH_FIELDS, searchFieldsOf, type SearchField } from '../partners/search-view';
import { CATALOG_DEFAULTS, PARTNER_ADAPTERS, QUESTION_TYPES } from './catalog-vocabulary';
import type {
  ChoiceListMapping,
  CatalogPartner,
  OfferListMapping,
  PartnerSearchSettings,
  PartnerSettings,
  PartnerSubmitSettings,
  QuestionMapping,
} from './catalog.types';
import { EXPIRY_UNITS, QUESTION_PLACES } from './catalog.types';
import { childPath, isPlainObject, JsonReader, tracker } from './json-reader';
import { FieldMapContext, readDottedPath, readFieldMap, readHeaders, readResponseRules } from './validate-mapping';

const NAME_MAX = 200;

/** Keys of a partner entry; `search` and `submit` configure the json adapter (the sandbox protocol is fixed). */
const PARTNER_KEYS = ['id', 'name', 'adapter', 'base_url', 'timeout_ms', 'headers', 'search_fields', 'search', 'submit'] as const;
const JSON_ONLY = ['search', 'submit'] as const;

/** A partner network (CATALOG.md, docs/partner-adapter.md): the settings are checked as far as the adapter reads them. */
export function readPartner(r: JsonReader, v: unknown, path: string): CatalogPartner | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, PARTNER_KEYS, ['id', 'name', 'adapter', 'base_url']);
  if (!o) return undefined;
  const p = (k: string) => childPath(path, k);
  const adapter = r.oneOf(o.adapter, p('adapter'), PARTNER_ADAPTERS);
  if (adapter === 'sandbox') {
    for (const key of JSON_ONLY)
      if (o[key] !== undefined) r.fail(p(key), 'only the json adapter reads it (the sandbox partner protocol is fixed)');
  }
  if (adapter === 'json' && o.search === undefined)
    r.fail(p('search'), 'is required on a json partner (the search call and how its answer is read)');
  const settings: PartnerSettings = {};
  if (o.headers !== undefined) settings.headers = readHeaders(r, o.headers, p('headers'));
  if (o.search_fields !== undefined) settings.search_fields = readSearchFields(r, o.search_fields, p('search_fields'));
  if (adapter === 'json' && o.search !== undefined) {
    settings.search = readSearch(r, o.search, p('search'));
    checkSearchSources(r, settings.search, searchFieldsOf(settings), p('search'));
  }
  if (adapter === 'json' && o.submit !== undefined) settings.submit = readSubmit(r, o.submit, p('submit'));
  const out = {
    id: r.uuid(o.id, p('id')),
    name: r.string(o.name, p('name'), { maxLength: NAME_MAX }),
    adapter,
    base_url: r.httpUrl(o.base_url, p('base_url')),
    timeout_ms: o.timeout_ms === undefined ? CATALOG_DEFAULTS.partnerTimeoutMs : r.integer(o.timeout_ms, p('timeout_ms'), 100, 120000),
    settings: Object.keys(settings).length === 0 ? null : settings,
  };
  return ok() ? (out as CatalogPartner) : undefined;
}

/** The partner's search fields: distinct names of SEARCH_FIELDS (an empty list: nothing of the lead). */
function readSearchFields(r: JsonReader, v: unknown, path: string): SearchField[] | undefined {
  const ok = tracker(r);
  const items = r.array(v, path);
  if (!items) return undefined;
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    const field = r.oneOf(item, childPath(path, i), SEARCH_FIELDS);
    if (field !== undefined && seen.has(field)) r.fail(childPath(path, i), `repeats ${field}`);
    if (field !== undefined) seen.add(field);
  }
  return ok() ? ([...seen] as SearchField[]) : undefined;
}

/**
 * A search field_map source under `lead` (or `tracking.ip_address`) names what
 * the partner may be sent: a field outside its search fields would never have
 * a value, so the mapping is refused rather than left silently empty.
 */
function checkSearchSources(r: JsonReader, search: PartnerSearchSettings | undefined, fields: readonly SearchField[], path: string): void {
  for (const [target, source] of Object.entries(search?.field_map ?? {})) {
    const named = SEARCH_FIELDS.filter((f) => f === source || f.startsWith(`${source}.`));
    const needsField = source === 'tracking.ip_address' || source.startsWith('lead.');
    if (needsField && named.length > 0 && !named.some((f) => fields.includes(f))) {
      r.fail(
        childPath(childPath(path, 'field_map'), target),
        `${source} is not among the partner's search_fields (${fields.join(', ') || 'none'}): it is never sent at search`,
      );
    }
  }
}

function readSearch(r: JsonReader, v: unknown, path: string): PartnerSearchSettings | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, ['path', 'field_map', 'results'], ['results']);
  if (!o) return undefined;
  const out = readCall(r, o, path, 'the search document', PARTNER_SEARCH_DOCUMENT_FIELDS);
  out.results = readOfferList(r, o.results, childPath(path, 'results'));
  return ok() ? (out as unknown as PartnerSearchSettings) : undefined;
}

function readSubmit(r: JsonReader, v: unknown, path: string): PartnerSubmitSettings | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, ['path', 'field_map', 'response_rules'], []);
  if (!o) return undefined;
  // A partner's questions come with its results, so any answers.<name> may be named.
  const out = readCall(r, o, path, 'the submit document', PARTNER_SUBMIT_DOCUMENT_FIELDS);
  if (o.response_rules !== undefined) out.response_rules = readResponseRules(r, o.response_rules, childPath(path, 'response_rules'));
  return ok() ? (out as unknown as PartnerSubmitSettings) : undefined;
}

/** What the search and submit calls share: the path after base_url, and the field map over their document. */
function readCall(
  r: JsonReader,
  o: Record<string, unknown>,
  path: string,
  document: string,
  shape: FieldMapContext['shape'],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (o.path !== undefined) out.path = readUrlPath(r, o.path, childPath(path, 'path'));
  if (o.field_map !== undefined)
    out.field_map = readFieldMap(r, o.field_map, childPath(path, 'field_map'), { body: "the partner's body", document, shape });
  return out;
}

/** Segments of letters, digits and `._~-`, none starting with a dot (so never `..`); no query, no leading slash. */
const URL_PATH_RE = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$/;

function readUrlPath(r: JsonReader, v: unknown, path: string): string | undefined {
  return r.string(v, path, {
    maxLength: 200,
    pattern: URL_PATH_RE,
    patternHint: 'must be a path relative to base_url, such as "v2/search" (letters, digits, ._~- and /; no leading /, no query)',
  });
}

/** `$` (the answer itself is the list) or a dotted path. */
function readListPath(r: JsonReader, v: unknown, path: string): string | undefined {
  return v === '$' ? v : readDottedPath(r, v, path);
}

const OFFER_LIST_KEYS = [
  'list',
  'search_id',
  'external_id',
  'partner_result_id',
  'programs',
  'questions',
  'tcpa_text',
  'school',
  'expires_in',
  'expires_at',
] as const;
const OFFER_PATHS = ['search_id', 'external_id', 'partner_result_id', 'tcpa_text', 'expires_at'] as const;

function readOfferList(r: JsonReader, v: unknown, path: string): OfferListMapping | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, OFFER_LIST_KEYS, ['list', 'external_id', 'partner_result_id', 'programs']);
  if (!o) return undefined;
  const p = (k: string) => childPath(path, k);
  const out: Record<string, unknown> = { list: readListPath(r, o.list, p('list')) };
  for (const key of OFFER_PATHS) if (o[key] !== undefined) out[key] = readDottedPath(r, o[key], p(key));
  if (o.programs !== undefined) out.programs = readChoiceList(r, o.programs, p('programs'));
  if (o.questions !== undefined) out.questions = readQuestions(r, o.questions, p('questions'));
  if (o.school !== undefined) {
    const s = r.object(o.school, p('school'), ['path', 'name', 'logo_url'], ['name']);
    if (s) out.school = readPaths(r, s, p('school'), ['path', 'name', 'logo_url']);
  }
  if (o.expires_in !== undefined) {
    const e = r.object(o.expires_in, p('expires_in'), ['path', 'unit'], ['path', 'unit']);
    if (e)
      out.expires_in = {
        path: readDottedPath(r, e.path, childPath(p('expires_in'), 'path')),
        unit: r.oneOf(e.unit, childPath(p('expires_in'), 'unit'), EXPIRY_UNITS),
      };
    if (o.expires_at !== undefined) r.fail(p('expires_at'), 'give expires_in or expires_at, not both');
  }
  return ok() ? (out as unknown as OfferListMapping) : undefined;
}

function readChoiceList(r: JsonReader, v: unknown, path: string): ChoiceListMapping | undefined {
  const o = r.object(v, path, ['list', 'value', 'label'], ['list', 'value']);
  if (!o) return undefined;
  return readPaths(r, o, path, ['list', 'value', 'label']) as ChoiceListMapping | undefined;
}

const QUESTION_KEYS = ['list', 'under', 'name', 'label', 'type', 'types', 'required', 'required_when', 'options'] as const;

function readQuestions(r: JsonReader, v: unknown, path: string): QuestionMapping | undefined {
  const ok = tracker(r);
  const o = r.object(v, path, QUESTION_KEYS, ['list', 'name']);
  if (!o) return undefined;
  const p = (k: string) => childPath(path, k);
  const out = readPaths(r, o, path, ['list', 'name', 'label', 'type', 'required', 'required_when']) ?? {};
  if (o.under !== undefined) out.under = r.oneOf(o.under, p('under'), QUESTION_PLACES);
  if (o.under === 'program' && o.required_when !== undefined) {
    r.fail(p('required_when'), 'only questions under the offer have one (under a program, `required` says for which programs)');
  }
  if (o.types !== undefined) {
    if (o.type === undefined) r.fail(p('types'), 'needs type (the path of the value it translates)');
    if (!isPlainObject(o.types) || Object.keys(o.types).length === 0 || Object.keys(o.types).length > 50) {
      r.fail(p('types'), `must be an object of 1 to 50 of the partner's type values to one of ${QUESTION_TYPES.join(', ')}`);
    } else {
      out.types = Object.fromEntries(Object.entries(o.types).map(([k, t]) => [k, r.oneOf(t, childPath(p('types'), k), QUESTION_TYPES)]));
    }
  }
  if (o.options !== undefined) out.options = readChoiceList(r, o.options, p('options'));
  return ok() ? (out as unknown as QuestionMapping) : undefined;
}

/** The given keys of `o` that are present, each a dotted path. */
function readPaths(r: JsonReader, o: Record<string, unknown>, path: string, keys: readonly string[]): Record<string, unknown> | undefined {
  const ok = tracker(r);
  const out: Record<string, unknown> = {};
  for (const key of keys) if (o[key] !== undefined) out[key] = readDottedPath(r, o[key], childPath(path, key));
  return ok() ? out : undefined;
}
