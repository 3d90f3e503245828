import type { Queryable } from '../queries/queryable';
import { filled, run, statement } from '../queries/sql';

/**
 * A lead whose buyer call was cut by a crash and could not be sent again (the
 * buyer does not honour idempotency keys): decided unanswered, although the
 * buyer may hold it. No contact data.
 */
export interface UnresolvedDelivery {
  leadId: string;
  affiliateId: string;
  campaignId: string;
  offerId: string;
  offerName: string;
  /** The school's name, or the partner network's for a partner offer. */
  buyer: string;
  buyerKind: 'school' | 'partner';
  startedAt: Date;
  decidedAt: Date | null;
  code: string | null;
  isTest: boolean;
}

const UNRESOLVED = statement(
  'unresolvedDeliveries',
  `
  SELECT a.lead_id, l.affiliate_id, l.campaign_id, l.offer_id, o.name AS offer_name,
         COALESCE(p.name, sc.name) AS buyer, CASE WHEN o.source = 'partner' THEN 'partner' ELSE 'school' END AS buyer_kind,
         a.started_at, l.decided_at, l.code, l.is_test
    FROM delivery_attempts a
    JOIN leads l ON l.id = a.lead_id
    JOIN offers o ON o.id = l.offer_id
    JOIN schools sc ON sc.id = o.school_id
    LEFT JOIN partners p ON p.id = o.partner_id
   WHERE a.outcome = 'interrupted' AND a.started_at >= $1 AND a.started_at < $2
   ORDER BY a.started_at, a.lead_id
   LIMIT $3`,
);

/** The operator's reconciliation list (`ops deliveries unresolved`; docs/submit.md, At most once). */
export class UnresolvedDeliveries {
  constructor(private readonly db: Queryable) {}

  /** Interrupted deliveries whose call started in [from, to), oldest first, at most `limit`. */
  async list(from: Date, to: Date, limit: number): Promise<UnresolvedDelivery[]> {
    const rows = await run(this.db, UNRESOLVED, [from, to, limit]);
    return rows.map((r) => ({
      leadId: r.lead_id,
      affiliateId: r.affiliate_id,
      campaignId: r.campaign_id,
      offerId: r.offer_id,
      offerName: r.offer_name,
      buyer: filled(r.buyer, 'buyer'),
      buyerKind: r.buyer_kind === 'partner' ? 'partner' : 'school',
      startedAt: new Date(r.started_at),
      decidedAt: r.decided_at ? new Date(r.decided_at) : null,
      code: r.code,
      isTest: r.is_test,
    }));
  }
}
