/** Lead as accepted by the gateway: nested groups, flat keys folded in (see lead-input.ts). */
export interface LeadPayload {
  personal?: Record<string, string>;
  address?: Record<string, string>;
  education?: Record<string, string>;
  background?: Record<string, string>;
}

/** A lead comes from a submit of a search result, or from a direct post to one offer. */
export const LEAD_KINDS = ['result_submit', 'direct_post'] as const;
export type LeadKind = (typeof LEAD_KINDS)[number];

/** Whose address the recorded consumer IP is: the consumer's, or the caller's server's (when the caller sent none). */
export const IP_SOURCES = ['consumer', 'caller_server'] as const;
export type IpSource = (typeof IP_SOURCES)[number];

/** The consent record sent to the buyer with the lead (and kept as evidence). */
export interface ConsentDocument {
  tcpaConsent: boolean;
  /** The statement exactly as shown with the result. */
  tcpaText: string | null;
  buttonLabel: string | null;
  consentedAt: string;
  ip: string;
  formCertUrl: string | null;
  universalLeadCert: string | null;
}
