import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Search } from './search.entity';

export const PARTNER_CALL_STATUSES = ['pending', 'answered', 'timeout', 'error', 'circuit_open', 'expired'] as const;
export type PartnerCallStatus = (typeof PARTNER_CALL_STATUSES)[number];

/** One partner network asked during a search; the search is done when no call is pending. */
@Entity({ name: 'search_partner_calls' })
@Check('ck_search_partner_calls_status', `"status" IN ('pending', 'answered', 'timeout', 'error', 'circuit_open', 'expired')`)
export class SearchPartnerCall {
  @ForeignKey(() => Search, { name: 'fk_search_partner_calls_search' })
  @PrimaryColumn('uuid', { name: 'search_id' })
  searchId: string;
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
