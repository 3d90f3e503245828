import {
  AFFILIATE_STATUSES,
  CAMPAIGN_STATUSES,
  CAP_PERIODS,
  CATALOG_DEFAULTS,
  DEFAULT_CAP_TIMEZONE,
  OFFER_SOURCES,
  OFFER_STATUSES,
  OFFER_TYPES,
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
  DeliverySettings,
  KnownCatalogRefs,
  QuestionOption,
} from './catalog.types';
import { NO_KNOWN_REFS } from './catalog.types';
import { childPath, isPlainObject, JsonReader, tracker } from './json-reader';
import { readEligibility } from './validate-eligibility';
import { readDelivery } from './validate-delivery';
import { readPartner } from './validate-partner';
import { readReturns } from './validate-returns';

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
    name: r.string(o.name, childPath(path, 'name'), { maxLength: NAME_MAX, plainText: true }),
    logo_url: o.logo_url === undefined || o.logo_url === null ? null : r.httpUrl(o.logo_url, childPath(path, 'logo_url')),
  };
  return ok() ? (out as CatalogSchool) : undefined;
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
  'returns',
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
    if (o.returns !== undefined)
      r.fail(
        p('returns'),
        "not allowed on a partner offer (the partner network bought the lead, not the school: its returns are the partner's business)",
      );
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
    name: r.string(o.name, p('name'), { maxLength: NAME_MAX, plainText: true }),
    school_id: r.uuid(o.school_id, p('school_id')),
    source,
    partner_id: o.partner_id === undefined ? null : r.uuid(o.partner_id, p('partner_id')),
    external_id: o.external_id === undefined ? null : r.string(o.external_id, p('external_id'), { maxLength: NAME_MAX }),
    offer_type: r.oneOf(o.offer_type, p('offer_type'), OFFER_TYPES),
    status: r.oneOf(o.status, p('status'), OFFER_STATUSES),
    priority: o.priority === undefined ? CATALOG_DEFAULTS.priority : r.integer(o.priority, p('priority'), -1000000, 1000000),
    price: o.price === undefined ? null : r.money(o.price, p('price')),
    tcpa_text: o.tcpa_text === undefined ? null : r.string(o.tcpa_text, p('tcpa_text'), { maxLength: TEXT_MAX, plainText: true }),
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
    returns: source === 'own' && o.returns !== undefined && o.returns !== null ? readReturns(r, o.returns, p('returns')) : null,
  };
  if (source === 'own' && o.delivery !== undefined) {
    // Read last, so field_map sources can be checked against this offer's questions (unless those are broken).
    out.delivery = readDelivery(
      r,
      o.delivery,
      p('delivery'),
      out.form_fields?.map((q) => q.name),
    );
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
    const value = r.string(o.value, childPath(ip, 'value'), { maxLength: NAME_MAX, plainText: true });
    unique(value, childPath(ip, 'value'), `duplicate program value ${JSON.stringify(value)}`);
    return {
      value,
      label: r.string(o.label, childPath(ip, 'label'), { maxLength: NAME_MAX, plainText: true }),
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
      label: r.optionalString(o.label, p('label'), { maxLength: TEXT_MAX, plainText: true }),
      type,
      required: r.boolean(o.required, p('required')),
      required_when:
        o.required_when === undefined || o.required_when === null
          ? null
          : readRequiredWhen(r, o.required_when, p('required_when'), programValues),
      options,
    } as CatalogQuestion;
  });
}

function readOptions(r: JsonReader, v: unknown, path: string): QuestionOption[] | undefined {
  const keys = { allowed: ['value', 'label'], required: ['value', 'label'] };
  return readObjectList(r, r.array(v, path, { nonEmpty: true }), path, keys, (o, ip, unique) => {
    const value = r.string(o.value, childPath(ip, 'value'), { maxLength: NAME_MAX, plainText: true });
    unique(value, childPath(ip, 'value'), `duplicate option value ${JSON.stringify(value)}`);
    return { value, label: r.string(o.label, childPath(ip, 'label'), { maxLength: NAME_MAX, plainText: true }) } as QuestionOption;
  });
}

function readRequiredWhen(
  r: JsonReader,
  v: unknown,
  path: string,
  programValues: string[] | undefined,
): { program_ids: string[] } | undefined {
  const o = r.object(v, path, ['program_ids'], ['program_ids']);
  if (!o) return undefined;
  const p = childPath(path, 'program_ids');
  const arr = r.array(o.program_ids, p, { nonEmpty: true });
  if (!arr) return undefined;
  const ok = tracker(r);
  const ids = arr.map((item, i) => {
    const value = r.string(item, childPath(p, i));
    if (value !== undefined && programValues && !programValues.includes(value)) {
      r.fail(
        childPath(p, i),
        `unknown program ${JSON.stringify(value)}: not among this offer's programs (${programValues.join(', ') || 'none'})`,
      );
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
      if (first)
        r.fail(
          childPath(e.path, 'external_id'),
          `partner ${offer.partner_id} already has an offer with external_id ${JSON.stringify(offer.external_id)} (${first})`,
        );
      else externalIds.set(key, e.path);
    }
  }
  // A partner offer already in the database and not redefined by this file keeps its external id.
  for (const [id, k] of known.offers) {
    if (ids.offers.has(id) || k.source !== 'partner' || !k.partnerId || !k.externalId) continue;
    const first = externalIds.get(`${k.partnerId}\u0000${k.externalId}`);
    if (first)
      r.fail(
        childPath(first, 'external_id'),
        `partner ${k.partnerId} already has offer ${id} with external_id ${JSON.stringify(k.externalId)} in the database`,
      );
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
      r.fail(
        childPath(e.path, 'affiliate_id'),
        `unknown affiliate ${campaign.affiliate_id}: not in this file's affiliates nor in the database`,
      );
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
