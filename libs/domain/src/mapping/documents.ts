import { LEAD_GROUPS } from '../lead-input';
import type { ConsentDocument, LeadPayload } from '../vocabulary/lead';
import type { PartnerSearchLead } from '../partners/search-view';
import type { DocumentShape } from './mapping.types';

/**
 * The documents a `field_map` picks its values from, and what is sent when
 * there is none (docs/delivery-adapters.md, "The default lead document";
 * docs/partner-adapter.md, "The json adapter"): a school's delivery, a
 * partner's search and a partner's submit. Never in them: our payout or the
 * offer's price, the affiliate or campaign, the API key, anything of another
 * offer. The *_FIELDS shapes list what a field_map source may name; a unit
 * test checks that each document has exactly those fields.
 */

/** What a buyer (school or partner) is sent about a submitted lead, as delivery has it (its DeliveryRequestedV1 carries these). */
export interface BuyerLead {
  lead: LeadPayload;
  tracking: Record<string, string>;
  consumerIp: string;
  programId: string | null;
  answers: Record<string, string>;
  consent: ConsentDocument;
  submittedAt: string;
}

/** The consent record as a document carries it. */
export interface ConsentFields {
  tcpa_consent: boolean;
  tcpa_text: string | null;
  button_label: string | null;
  consented_at: string;
  ip: string;
  form_cert_url: string | null;
  universal_lead_cert: string | null;
}

interface BuyerFields {
  lead: LeadPayload;
  tracking: Record<string, string>;
  consumer_ip: string;
  program_id: string | null;
  answers: Record<string, string>;
  consent: ConsentFields;
  submitted_at: string;
}

/** A school delivery's lead document: what the sandbox school adapter sends, and the json adapter without a field_map. */
export interface LeadDocument extends BuyerFields {
  lead_id: string;
  offer: { id: string; name: string; school_name: string };
}

export interface SchoolLead extends BuyerLead {
  leadId: string;
  offer: { id: string; name: string; schoolName: string };
}

export function schoolLeadDocument(d: SchoolLead): LeadDocument {
  return {
    lead_id: d.leadId,
    offer: { id: d.offer.id, name: d.offer.name, school_name: d.offer.schoolName },
    ...buyerFields(d),
  };
}

/** A partner submit's document; `external_id` is absent when the offer has none, so a field_map leaves its target out. */
export interface PartnerSubmitDocument extends BuyerFields {
  lead_id: string;
  search_id: string;
  partner_result_id: string;
  external_id?: string;
}

export interface PartnerSubmitLead extends BuyerLead {
  leadId: string;
  searchId: string;
  partnerResultId: string;
  externalId: string | null;
}

export function partnerSubmitDocument(d: PartnerSubmitLead): PartnerSubmitDocument {
  return {
    lead_id: d.leadId,
    search_id: d.searchId,
    partner_result_id: d.partnerResultId,
    ...(d.externalId ? { external_id: d.externalId } : {}),
    ...buyerFields(d),
  };
}

/**
 * A partner search's document: the search, the partner's ids of the offers
 * asked (each once), and the partner's view of the lead and tracking
 * (partners/search-view.ts: never the whole lead).
 */
export interface PartnerSearchDocument {
  search_id: string;
  external_ids: string[];
  offers: Array<{ external_id: string }>;
  lead: PartnerSearchLead;
  tracking: Record<string, string>;
  is_test: boolean;
}

export function partnerSearchDocument(d: {
  searchId: string;
  externalIds: readonly string[];
  lead: PartnerSearchLead;
  tracking: Record<string, string>;
  isTest: boolean;
}): PartnerSearchDocument {
  const lead: PartnerSearchLead = leadGroups(d.lead);
  if (d.lead.hashed) lead.hashed = { ...d.lead.hashed };
  return {
    search_id: d.searchId,
    external_ids: [...d.externalIds],
    offers: d.externalIds.map((external_id) => ({ external_id })),
    lead,
    tracking: { ...d.tracking },
    is_test: d.isTest,
  };
}

/** The shared part of a buyer's document. */
function buyerFields(d: BuyerLead): BuyerFields {
  const c = d.consent;
  return {
    lead: leadGroups(d.lead),
    tracking: { ...d.tracking },
    consumer_ip: d.consumerIp,
    program_id: d.programId,
    answers: { ...d.answers },
    consent: {
      tcpa_consent: c.tcpaConsent,
      tcpa_text: c.tcpaText,
      button_label: c.buttonLabel,
      consented_at: c.consentedAt,
      ip: c.ip,
      form_cert_url: c.formCertUrl,
      universal_lead_cert: c.universalLeadCert,
    },
    submitted_at: d.submittedAt,
  };
}

/** Only the lead's four groups, copied. */
function leadGroups(source: LeadPayload): LeadPayload {
  const lead: LeadPayload = {};
  for (const group of Object.keys(LEAD_GROUPS) as Array<keyof typeof LEAD_GROUPS>) {
    if (source[group]) lead[group] = { ...source[group] };
  }
  return lead;
}

const LEAD_SHAPE: { readonly [group: string]: DocumentShape } = Object.fromEntries(
  Object.entries(LEAD_GROUPS).map(([group, fields]) => [group, Object.fromEntries(fields.map((f) => [f, true]))]),
);

/** `tracking` keys are the sender's; `answers` keys are the result's questions. */
const BUYER_SHAPE = {
  lead: LEAD_SHAPE,
  tracking: 'any-key',
  consumer_ip: true,
  program_id: true,
  answers: 'any-key',
  consent: {
    tcpa_consent: true,
    tcpa_text: true,
    button_label: true,
    consented_at: true,
    ip: true,
    form_cert_url: true,
    universal_lead_cert: true,
  },
  submitted_at: true,
} as const satisfies Record<keyof BuyerFields, DocumentShape>;

/** A school delivery's lead document, as far as a field_map source may name it. */
export const LEAD_DOCUMENT_FIELDS: { readonly [field: string]: DocumentShape } = {
  lead_id: true,
  offer: { id: true, name: true, school_name: true },
  ...BUYER_SHAPE,
};

/** A partner's view of a search's lead: the lead's fields, the age band and birth year, the hashed email and phone. */
const SEARCH_LEAD_SHAPE: DocumentShape = {
  ...LEAD_SHAPE,
  personal: { ...(LEAD_SHAPE.personal as object), age_band: true, birth_year: true },
  hashed: { email: true, phone: true },
};

/** A partner search's document (`external_ids` is a list of strings, `offers` a list of `{ external_id }`). */
export const PARTNER_SEARCH_DOCUMENT_FIELDS: { readonly [field: string]: DocumentShape } = {
  search_id: true,
  external_ids: true,
  offers: true,
  lead: SEARCH_LEAD_SHAPE,
  tracking: 'any-key',
  is_test: true,
};

/** A partner submit's document. */
export const PARTNER_SUBMIT_DOCUMENT_FIELDS: { readonly [field: string]: DocumentShape } = {
  lead_id: true,
  search_id: true,
  partner_result_id: true,
  external_id: true,
  ...BUYER_SHAPE,
};
