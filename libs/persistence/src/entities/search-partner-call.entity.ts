import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

export const PARTNER_CALL_STATUSES = ['pending', 'answered', 'timeout', 'error', 'circuit_open', 'expired'] as const;
export type PartnerCallStatus = (typeof PARTNER_CALL_STATUSES)[number];

/** One partner network asked during a search; the search is done when no call is pending. */
@Entity({ name: 'search_partner_calls' }) // partitioned by part_day (migration 1764800000000)
@Check('ck_search_partner_calls_status', `"status" IN ('pending', 'answered', 'timeout', 'error', 'circuit_open', 'expired')`)
export class SearchPartnerCall {
  @PrimaryColumn('uuid', { name: 'search_id' })
  searchId: string;
  /** Its search's day partition (`searches.part_day`). */
  @PrimaryColumn('date', { name: 'part_day' }) partDay: string;
  @PrimaryColumn('uuid', { name: 'partner_id' })
  partnerId: string;
  @Column('uuid', { name: 'offer_ids', array: true }) offerIds: string[];
  @Column('text') status: PartnerCallStatus;
  @Column('timestamptz', { name: 'requested_at', default: () => 'now()' }) requestedAt: Date;
  @Column('timestamptz', { name: 'answered_at', nullable: true }) answeredAt: Date | null;
  @Column('integer', { name: 'latency_ms', nullable: true }) latencyMs: number | null;
  @Column('integer', { name: 'result_count', nullable: true }) resultCount: number | null;
  @Column('text', { nullable: true }) detail: string | null;
}
