import type { ConsentDocument, LeadPayload, PartnerOfferResult, PartnerRef, PartnerSearchLead } from '@lr/contracts';

/** What one search asks one partner: the partner's offers on the campaign, by our id and the partner's, and its view of the lead. */
export interface PartnerSearchCall {
  searchId: string;
  offers: Array<{ offerId: string; externalId: string }>;
  lead: PartnerSearchLead;
  tracking: Record<string, string>;
  isTest: boolean;
}

/** A chosen partner result posted to the partner. */
export interface PartnerSubmitCall {
  searchId: string;
  partnerResultId: string;
  lead: LeadPayload;
  programId: string | null;
  answers: Record<string, string>;
  /** Sent as the partner's dedupe key: the same submit sent again must not be a second lead. */
  idempotencyKey: string;
  /** The rest of the submit document (docs/partner-adapter.md). */
  externalId: string | null;
  tracking: Record<string, string>;
  consumerIp: string;
  consent: ConsentDocument;
  submittedAt: string;
}

/**
 * How a partner took a submit. Failures (timeout, HTTP error, a body we cannot
 * read) throw instead. `partnerReason` is the partner's own text, for
 * operators only.
 */
export type PartnerSubmitOutcome =
  | { kind: 'accepted'; partnerLeadId: string | null }
  | { kind: 'rejected'; partnerReason: string | null }
  | { kind: 'duplicate'; partnerReason?: string | null };

/**
 * One partner interface (the catalog's `adapter` name). An implementation speaks
 * the partner's protocol and nothing else: deadlines, circuit breaking, metrics
 * and the answer message are the caller's. It must
 * - honour `signal` (abort the HTTP call when it fires),
 * - treat the partner as untrusted: validate everything it returns, and map
 *   results back to our offer ids, leaving out what was not asked,
 * - throw PartnerTimeoutError, PartnerHttpError or PartnerProtocolError
 *   (partner-errors.ts) on failure; each counts against the partner's
 *   breaker. PartnerConfigError (settings we cannot use) does not.
 */
export interface PartnerAdapter {
  search(partner: PartnerRef, req: PartnerSearchCall, signal: AbortSignal): Promise<PartnerOfferResult[]>;
  submit(partner: PartnerRef, req: PartnerSubmitCall, signal: AbortSignal): Promise<PartnerSubmitOutcome>;
}
