import type {
  ApiCode,
  ConsentDocument,
  IpSource,
  LeadKind,
  LeadPayload,
  OfferType,
  PartnerRef,
  SealedContact,
  SubmitDecision,
} from '@lr/domain';

// The domain's words (libs/domain vocabulary/), named here too for the code that reads the messages.
export type { ConsentDocument, SubmitDecision } from '@lr/domain';

/**
 * gateway -> checks (request/reply, a routing slip through delivery). The
 * gateway has already checked the key, the affiliate, the campaign and that
 * the result (or offer, or earlier lead) is the caller's; checks decides and
 * delivery delivers. `leadId` is chosen by the gateway, so a PENDING answer
 * can name the lead before it is stored.
 */
export interface SubmitRequestedV1 {
  leadId: string;
  kind: LeadKind;
  affiliateId: string;
  apiKeyId: string;
  campaignId: string;
  /** Result submit: the result and the search it came from. */
  resultId: string | null;
  searchId: string | null;
  /** Direct post: the offer; on a retry, the lead id returned earlier (`svc_lead_id`). */
  offerId: string | null;
  originLeadId: string | null;
  /** Direct post: the whole lead. Result submit: the lead fields sent with the submit (they replace the search's), or null. */
  lead: LeadPayload | null;
  /** Direct post only (a result submit takes them from the search). */
  tracking: Record<string, string> | null;
  consumerIp: string | null;
  ipSource: IpSource | null;
  programId: string | null;
  /** Every top-level key that is not an envelope field: the answers to the result's questions. */
  answers: Record<string, unknown>;
  tcpaConsent: boolean | null;
  consentButtonLabel: string | null;
  formCertUrl: string | null;
  universalLeadCert: string | null;
  isTest: boolean;
  requestedAt: string;
  /**
   * The contact fields of `lead` and the consumer IP, sealed by the gateway
   * under a data key of the lead's own (docs/security.md); `lead`, `tracking`
   * and `consumerIp` then hold the readable part. Null or absent: nothing
   * sealed (no contact field sent, or an older gateway's whole lead).
   */
  contact?: SealedContact | null;
}

/** A submit refused before anything is stored, with the contract's HTTP error (e.g. 403 for a change to a submitted lead). */
export interface SubmitRefusal {
  httpStatus: 403 | 404;
  code: ApiCode;
  reason: string;
  error?: string;
  field?: string;
}

export type SubmitAnswerV1 = { kind: 'decision'; decision: SubmitDecision } | { kind: 'refused'; refusal: SubmitRefusal };

/** Who buys the lead: an own offer's school system, or the partner network of a partner result. */
export type DeliveryBuyer =
  | {
      kind: 'school';
      schoolName: string;
      offerName: string;
      /** The offer's delivery settings as the catalog stores them (libs/domain DeliverySettings). */
      delivery: Record<string, unknown>;
    }
  | {
      kind: 'partner';
      partner: PartnerRef;
      partnerResultId: string;
      /** The partner's id of the offer. */
      externalId: string | null;
    };

/**
 * checks -> delivery (forwarded on the submit's routing slip): a lead whose
 * sale is reserved, with everything its buyer is sent, so delivery reads
 * nothing before the call. Delivery claims the attempt, calls the buyer once,
 * books the answer and replies to the gateway.
 */
export interface DeliveryRequestedV1 {
  leadId: string;
  kind: LeadKind;
  affiliateId: string;
  campaignId: string;
  offerId: string;
  searchId: string | null;
  resultId: string | null;
  /** The offer's type: an accepted `true_exclusive` sale ends the lead's other sales. */
  offerType: OfferType;
  /** The payout booked on the sale (numeric text, "20.50"), null when none is configured. */
  payout: string | null;
  buyer: DeliveryBuyer;
  lead: LeadPayload;
  tracking: Record<string, string>;
  consumerIp: string;
  programId: string | null;
  answers: Record<string, string>;
  consent: ConsentDocument;
  submittedAt: string;
  /** The lead's sealed contact data (its stored `leads.contact`): delivery opens it to call a school, partner-adapter for a partner. Null: the lead is whole. */
  contact?: SealedContact | null;
}

/** delivery -> partner-adapter (request/reply): post one chosen partner result. */
export interface PartnerSubmitRequestedV1 {
  leadId: string;
  searchId: string;
  partner: PartnerRef;
  partnerResultId: string;
  lead: LeadPayload;
  programId: string | null;
  answers: Record<string, string>;
  /** What a partner's submit document also carries (docs/partner-adapter.md), as delivery has them for a school. */
  externalId: string | null;
  tracking: Record<string, string>;
  consumerIp: string;
  consent: ConsentDocument;
  submittedAt: string;
  /** The lead's sealed contact data, opened by partner-adapter at the moment of the call. Null: the lead is whole. */
  contact?: SealedContact | null;
  /**
   * Delivery stops waiting at this time and decides without the partner: a
   * request handled later is not sent (it would sell a lead nobody records).
   */
  notAfter: string;
}

export type PartnerSubmitAnswerV1 =
  | { leadId: string; outcome: 'accepted'; partnerLeadId: string | null }
  | { leadId: string; outcome: 'rejected'; detail: string | null }
  /** `detail`: the partner's own reason, for operators only. */
  | { leadId: string; outcome: 'duplicate'; detail: string | null }
  | { leadId: string; outcome: 'timeout' | 'error'; detail: string }
  /** A copy of a request handled before (a redelivery after a crash mid-call): not sent again; the partner may have the lead. */
  | { leadId: string; outcome: 'interrupted'; detail: string };
