import type { ConsentDocument, LeadPayload } from '@lr/contracts';
import type { DeliverySettings } from '@lr/domain';

/** One accepted-for-sale lead to deliver to the school (buyer) of an own offer. */
export interface SchoolDelivery {
  leadId: string; // our svc_lead_id; sent as the Idempotency-Key header on every adapter
  offer: { id: string; name: string; schoolName: string };
  settings: DeliverySettings; // the offer's catalog `delivery`
  lead: LeadPayload; // nested groups personal/address/education/background, string values
  tracking: Record<string, string>;
  consumerIp: string;
  programId: string | null;
  answers: Record<string, string>; // answers to the offer's questions, by question name
  consent: ConsentDocument;
  submittedAt: string; // ISO
}

/**
 * How the school took the lead. `buyerReason` and `buyerLeadId` are the
 * school's own words, for operators only (at most 500 and 200 characters):
 * never shown to an affiliate.
 */
export type SchoolOutcome =
  | { kind: 'accepted'; buyerLeadId: string | null }
  | { kind: 'duplicate'; buyerReason: string | null }
  | { kind: 'rejected'; buyerReason: string | null };

/**
 * One school-system protocol (the catalog's `delivery.adapter`). It speaks the
 * protocol and nothing else: the deadline is deliverWithDeadline's, the
 * decision the delivery service's. The school is untrusted: answers are read
 * with a size cap, without redirects, and checked before use.
 */
export interface SchoolAdapter {
  /** Honour `signal` (abort the HTTP call). Throw SchoolTimeoutError / SchoolHttpError / SchoolProtocolError on failure. */
  deliver(d: SchoolDelivery, signal: AbortSignal): Promise<SchoolOutcome>;
}
