import type { FormField, ResultEntry } from './result-entry';
/**
 * The message types that cross RabbitMQ, versioned by name (STYLE.md: one place
 * declares them; producers and consumers import them from here). A breaking
 * change gets a new name (`.v2`) and both are handled until the old one drains.
 */
export const MESSAGE_TYPES = {
  /** gateway -> search-orchestrator (request/reply): store the search, answer the first results. */
  SearchRequested: 'search.requested.v1',
  /** search-orchestrator -> checks (request/reply): which of these offers (and programs) may this search's lead be shown? */
  OffersCheckRequested: 'checks.offers.requested.v1',
  /** search-orchestrator -> partner-adapter (command): ask one partner network about its offers for one search. */
  PartnerSearchRequested: 'partner.search.requested.v1',
  /** partner-adapter -> search-orchestrator (command): one partner's answer (or its failure) for one search. */
  PartnerSearchAnswered: 'partner.search.answered.v1',
  /** gateway -> delivery (request/reply): decide one submit or direct post; the reply is the decision (or PENDING when late). */
  SubmitRequested: 'submit.requested.v1',
  /** delivery -> checks (request/reply): the submit-time checks in full. */
  SubmitChecksRequested: 'checks.submit.requested.v1',
  /** delivery -> partner-adapter (request/reply): post a chosen partner result to its partner network. */
  PartnerSubmitRequested: 'partner.submit.requested.v1',
} as const;
export type MessageType = (typeof MESSAGE_TYPES)[keyof typeof MESSAGE_TYPES];

/** Metadata every message carries (AMQP properties + headers). */
export interface MessageMeta {
  messageId: string;
  type: string;
  version: number;
  correlationId: string;
  timestamp: Date;
  /** 1 on first delivery; incremented by each retry. */
  attempt: number;
}

/** Lead as accepted by the gateway: nested groups, flat keys folded in (see libs/domain lead-fields). */
export interface LeadPayload {
  personal?: Record<string, string>;
  address?: Record<string, string>;
  education?: Record<string, string>;
  background?: Record<string, string>;
}

export interface SearchRequestedV1 {
  searchId: string;
  affiliateId: string;
  campaignId: string;
  apiKeyId: string;
  isTest: boolean;
  lead: LeadPayload;
  tracking: Record<string, string>;
  /** The consumer IP recorded for the search, and whether it is the consumer's or the caller's server address. */
  consumerIp: string;
  ipSource: 'consumer' | 'caller_server';
  tcpaConsent: boolean | null;
  formCertUrl: string | null;
  universalLeadCert: string | null;
  requestedAt: string;
  /** The gateway stops waiting at this time and answers 503: a request handled later is dropped, not stored. */
  replyBy: string;
  /**
   * The gateway can read the first results from the search's state in Redis,
   * so the reply may leave them out (SearchAnswerV1.offersInState). Absent
   * from an older gateway, which always gets the offers in the reply.
   */
  readsOffersFromState?: boolean;
}

/** The orchestrator's reply to SearchRequestedV1: the envelope fields the gateway answers with. */
export interface SearchAnswerV1 {
  searchId: string;
  processingDone: boolean;
  pollAfterMs?: number;
  acceptedCount: number;
  maxAcceptedSubmissions: number;
  trueExclusiveAccepted: boolean;
  /** The first results, best first. Absent when `offersInState`. */
  offers?: ResultEntry[];
  /**
   * Set instead of `offers` (only when the request said `readsOffersFromState`):
   * the results were written to the search's Redis state before this reply,
   * so the gateway reads them there (as a poll does) rather than the list
   * travelling through the broker twice and being parsed and serialized again.
   */
  offersInState?: true;
}

/**
 * Asks checks which offers a search's lead may be shown (search-time checks:
 * offer and program eligibility, caps already full, the person already sold to
 * the offer within its duplicate window (live only), and the search's sale
 * state). Checks reads the catalog itself; only ids and the lead travel.
 */
export interface OffersCheckRequestedV1 {
  searchId: string;
  campaignId: string;
  isTest: boolean;
  lead: LeadPayload;
  /** The offers to check (all on the campaign, or the ones a partner answered for). */
  offerIds: string[];
  /**
   * False when asked before the search is stored (its first results): it has
   * no sales yet, so its sale state is not read.
   */
  searchStored: boolean;
}

/** Why an offer is left out of a search (stored for operators, never shown to affiliates). */
export type OfferRefusal =
  | 'offer_inactive'
  | 'not_on_campaign'
  | 'not_eligible'
  | 'no_eligible_program'
  | 'cap_reached'
  | 'duplicate'
  | 'sale_closed'
  | 'school_sold_exclusive';

export interface OfferCheckOutcome {
  offerId: string;
  qualifies: boolean;
  /** When it does not qualify. */
  refusal?: OfferRefusal;
  /** For eligibility refusals: the rule that failed, e.g. `states` or `programs.bsn.education_levels`. */
  detail?: string;
  /** Own offers: the program values that qualify, in catalog order. Partner offers: null (the partner supplies programs). */
  programs: string[] | null;
}

export interface OffersCheckAnswerV1 {
  searchId: string;
  outcomes: OfferCheckOutcome[];
}

/** The partner as the catalog configures it, snapshotted into the request. */
export interface PartnerRef {
  id: string;
  name: string;
  adapter: string;
  baseUrl: string;
  timeoutMs: number;
}

export interface PartnerSearchRequestedV1 {
  searchId: string;
  partner: PartnerRef;
  /** The partner's offers on the campaign that passed the search-time checks. */
  offers: Array<{ offerId: string; externalId: string }>;
  lead: LeadPayload;
  tracking: Record<string, string>;
  isTest: boolean;
  /** ISO time the search closes: the partner call never outlives it. */
  closesAt: string;
}

/** How a partner call ended. */
export type PartnerCallOutcome = 'answered' | 'timeout' | 'error' | 'circuit_open' | 'expired';

/** One result a partner returned, validated and mapped back to our offer id. */
export interface PartnerOfferResult {
  offerId: string;
  externalId: string;
  partnerResultId: string;
  programs: Array<{ value: string; label: string }>;
  formFields: FormField[];
  tcpaText: string | null;
  school: { name: string; logoUrl: string | null } | null;
  /** Seconds the partner keeps the result open, when it says. */
  expiresInSeconds: number | null;
}

export interface PartnerSearchAnsweredV1 {
  searchId: string;
  partnerId: string;
  outcome: PartnerCallOutcome;
  latencyMs: number;
  /** Empty unless outcome is `answered`. */
  results: PartnerOfferResult[];
  /** Short operator-facing description of a failure (never shown to affiliates). */
  detail?: string;
}
