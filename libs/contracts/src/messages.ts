import type { IpSource, LeadPayload, PartnerOfferResult, PartnerRef, PartnerSearchLead, SealedContact, SearchDerived } from '@lr/domain';

// The messages are written in the domain's vocabulary (libs/domain vocabulary/); its words are named here too, for the code that reads the messages.
export type { LeadPayload, OfferRefusal, PartnerOfferResult, PartnerRef, PartnerSearchLead } from '@lr/domain';

/**
 * The message types that cross RabbitMQ, versioned by name (STYLE.md: one place
 * declares them; producers and consumers import them from here). A breaking
 * change gets a new name (`.v2`) and both are handled until the old one drains.
 */
export const MESSAGE_TYPES = {
  /**
   * gateway -> search-orchestrator (request/reply): qualify the campaign's
   * offers, store the search, ask the partners; the reply is the search
   * answer's HTTP body (a RawReply), sent on by the gateway as it is.
   */
  SearchRequested: 'search.requested.v2',
  /**
   * search-orchestrator -> partner-adapter (command): ask every partner network
   * of a search about its offers, at once; one message per search.
   */
  PartnerSearchRequested: 'partner.search.requested.v2',
  /**
   * partner-adapter -> search-orchestrator (command): the answers (or
   * failures) of one or more partners of a search, each sent as soon as it
   * ends; answers that end together travel in one message.
   */
  PartnerSearchAnswered: 'partner.search.answered.v2',
  /**
   * gateway -> checks (request/reply, a routing slip): decide one submit or
   * direct post. Checks answers a refusal or a held test lead itself, or
   * reserves the sale and forwards DeliveryRequested, whose handler answers.
   */
  SubmitRequested: 'submit.requested.v2',
  /** checks -> delivery (the routing slip's second step): deliver a reserved lead to its buyer, book the answer, reply to the gateway. */
  DeliveryRequested: 'delivery.requested.v1',
  /** delivery -> partner-adapter (request/reply): post a chosen partner result to its partner network. */
  PartnerSubmitRequested: 'partner.submit.requested.v1',
  /**
   * delivery (its outbox relay) -> delivery (command): send one revocation
   * notice to its buyer (docs/opt-outs.md). Idempotent: the notice's row is
   * claimed before the call and acknowledged by the buyer's answer.
   */
  RevocationRequested: 'revocation.requested.v1',
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
  /** A forwarded request: the messageId of the original request, which the reply answers (x-reply-for). */
  replyFor?: string;
}

export interface SearchRequestedV1 {
  searchId: string;
  affiliateId: string;
  campaignId: string;
  apiKeyId: string;
  isTest: boolean;
  /** The readable part of the lead (state, ZIP, education, background, age: libs/domain splitContact); whole in an older gateway's message (no `contact`). */
  lead: LeadPayload;
  /** The tracking without `ip_address` (sealed). */
  tracking: Record<string, string>;
  /** The consumer IP recorded for the search ('' beside a sealed contact: it is sealed), and whether it is the consumer's or the caller's server address. */
  consumerIp: string;
  ipSource: IpSource;
  tcpaConsent: boolean | null;
  formCertUrl: string | null;
  universalLeadCert: string | null;
  requestedAt: string;
  /** The gateway stops waiting at this time and answers 503: a request handled later is dropped, not stored. */
  replyBy: string;
  /** The search's contact data, sealed by the gateway under a data key of the search's own (docs/security.md): stored as it is, never opened here. */
  contact?: SealedContact | null;
  /** What the rules and partners need of the contact data, derived by the gateway before sealing it. */
  derived?: SearchDerived;
}

/**
 * One partner network a search asks, with its offers on the campaign that
 * passed the search-time checks, and what it is sent of the search: its view
 * of the lead and tracking (libs/domain partnerSearchView, by the partner's
 * catalog `search_fields`), never the whole lead.
 */
export interface PartnerCallRequest {
  partner: PartnerRef;
  offers: Array<{ offerId: string; externalId: string }>;
  lead: PartnerSearchLead;
  tracking: Record<string, string>;
  /**
   * Only for a partner configured to receive contact data at search
   * (`search_fields`): the search's sealed contact data, which partner-adapter
   * opens to add those fields at the moment of the call.
   */
  contact?: SealedContact;
}

export interface PartnerSearchRequestedV2 {
  searchId: string;
  /** The search's campaign (echoed on the answers, so the orchestrator reads the campaign's offers before the search). */
  campaignId: string;
  /** Every partner network asked, each once, each with its own view of the search (no contact data unless its catalog entry names it). */
  partners: PartnerCallRequest[];
  isTest: boolean;
  /** ISO time the search closes: no partner call outlives it. */
  closesAt: string;
}

/** One partner's answer to a search, or how its call failed. */
export interface PartnerAnswer {
  partnerId: string;
  outcome: PartnerCallOutcome;
  latencyMs: number;
  /** Empty unless outcome is `answered`. */
  results: PartnerOfferResult[];
  /** Short operator-facing description of a failure (never shown to affiliates). */
  detail?: string;
}

export interface PartnerSearchAnsweredV2 {
  searchId: string;
  campaignId: string;
  /** One answer per partner, each partner at most once, in the order their calls ended. */
  answers: PartnerAnswer[];
}

/** How a partner call ended. */
export type PartnerCallOutcome = 'answered' | 'timeout' | 'error' | 'circuit_open' | 'expired';

/** A revocation notice to send (its row in revocation_notices holds the rest). */
export interface RevocationRequestedV1 {
  noticeId: string;
}
