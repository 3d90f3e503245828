import { InvalidParam } from '../shared/invalid-param';
import { idString, isObject, objectBody, optionalObject } from '../shared/body-checks';

/**
 * The sandbox partner protocol (docs/sandbox.md). A partner's base_url, e.g.
 * `http://127.0.0.1:4100/partners/alpha?delay_ms=3000&match=all&outcome=accept`,
 * is called as `<path>/search?<query>` and `<path>/submit?<query>`.
 */
export interface PartnerSearchRequest {
  search_id: string;
  offers: Array<{ external_id: string }>;
  lead?: Record<string, unknown>;
  tracking?: Record<string, unknown>;
  is_test?: boolean;
}

export interface PartnerProgram {
  value: string;
  label: string;
}

export interface PartnerFormField {
  name: string;
  label: string;
  type: 'select' | 'text';
  required: boolean;
  required_when?: { program_ids: string[] };
  options?: Array<{ value: string; label: string }>;
}

export interface PartnerSearchResult {
  external_id: string;
  partner_result_id: string;
  programs: PartnerProgram[];
  form_fields: PartnerFormField[];
  tcpa_text: string;
  school: { name: string; logo_url: string };
  expires_in_seconds: number;
}

export interface PartnerSearchResponse {
  search_id: string;
  results: PartnerSearchResult[];
}

export interface PartnerSubmitRequest {
  partner_result_id: string;
  search_id: string;
  lead?: Record<string, unknown>;
  program_id?: string | null;
  answers?: Record<string, unknown>;
}

/** Offers one search may ask about. */
export const MAX_SEARCH_OFFERS = 500;

export function parseSearchRequest(body: unknown): PartnerSearchRequest {
  const o = objectBody(body);
  const search_id = idString(o.search_id, 'search_id');
  if (!Array.isArray(o.offers)) throw new InvalidParam('offers', 'body', 'offers must be an array of { "external_id": string }');
  if (o.offers.length > MAX_SEARCH_OFFERS) throw new InvalidParam('offers', 'body', `offers may list at most ${MAX_SEARCH_OFFERS} offers`);
  const offers = o.offers.map((offer: unknown, i: number) => {
    if (!isObject(offer)) throw new InvalidParam(`offers[${i}]`, 'body', `offers[${i}] must be an object with external_id`);
    return { external_id: idString(offer.external_id, `offers[${i}].external_id`) };
  });
  optionalObject(o.lead, 'lead');
  optionalObject(o.tracking, 'tracking');
  if (o.is_test !== undefined && typeof o.is_test !== 'boolean') throw new InvalidParam('is_test', 'body', 'is_test must be a boolean');
  return { ...(o as object), search_id, offers } as PartnerSearchRequest;
}

export function parseSubmitRequest(body: unknown): PartnerSubmitRequest {
  const o = objectBody(body);
  idString(o.partner_result_id, 'partner_result_id');
  idString(o.search_id, 'search_id');
  optionalObject(o.lead, 'lead');
  optionalObject(o.answers, 'answers');
  if (o.program_id !== undefined && o.program_id !== null && typeof o.program_id !== 'string') {
    throw new InvalidParam('program_id', 'body', 'program_id must be a string or null');
  }
  return o as unknown as PartnerSubmitRequest;
}
