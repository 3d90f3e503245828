/**
 * The message types that cross RabbitMQ, versioned by name (STYLE.md: one place
 * declares them; producers and consumers import them from here). A breaking
 * change gets a new name (`.v2`) and both are handled until the old one drains.
 */
export const MESSAGE_TYPES = {
  /** gateway -> search-orchestrator (request/reply): store the search, answer the first results. */
  SearchRequested: 'search.requested.v1',
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
}

/** The orchestrator's reply to SearchRequestedV1: the envelope fields the gateway answers with. */
export interface SearchAnswerV1 {
  searchId: string;
  processingDone: boolean;
  pollAfterMs?: number;
  acceptedCount: number;
  maxAcceptedSubmissions: number;
  trueExclusiveAccepted: boolean;
  offers: unknown[];
}
