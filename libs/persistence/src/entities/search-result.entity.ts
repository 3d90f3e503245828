import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';
import { Search } from './search.entity';

/** A result of a search (`svc_result_id`); `entry` is the result entry exactly as shown to the affiliate. Order: `searches.result_order`. */
@Entity({ name: 'results' })
@Index('ux_results_search_offer', ['searchId', 'offerId'], { unique: true })
export class SearchResult {
  @PrimaryColumn('uuid') id: string;
  @ForeignKey(() => Search, { name: 'fk_results_search' })
  @Column('uuid', { name: 'search_id' })
  searchId: string;
  @Column('uuid', { name: 'offer_id' })
  offerId: string;
  @Column('uuid', { name: 'campaign_id' })
  campaignId: string;
  @Column('jsonb') entry: Record<string, unknown>;
  /** What a partner result needs on submit (e.g. the partner's result id, its price); never shown to the affiliate. */
  @Column('jsonb', { name: 'partner_data', nullable: true }) partnerData: Record<string, unknown> | null;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt: Date | null;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
}
