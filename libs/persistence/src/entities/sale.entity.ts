import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { OfferType } from '@lr/domain';
import { MONEY, TIMESTAMP_NOW } from './column-types';
import { Lead } from './lead.entity';

export const SALE_STATUSES = ['reserved', 'accepted', 'released'] as const;
export type SaleStatus = (typeof SALE_STATUSES)[number];

/**
 * The sales ledger: a slot reserved for a submit before delivery, then
 * accepted (booked with its payout and price) or released. One row per lead;
 * at most one live (reserved or accepted) sale per lead group and offer. Its
 * search, offer, school, campaign and affiliate are its lead's (checked by the
 * lead's foreign keys, not again here: docs/data-model.md).
 */
@Entity({ name: 'sales' })
@Check('ck_sales_status', `"status" IN ('reserved', 'accepted', 'released')`)
@Check('ck_sales_offer_type', `"offer_type" IN ('shared', 'exclusive', 'true_exclusive')`)
@Check('ck_sales_amounts', `"payout" >= 0 AND "price" >= 0`)
@Index('ux_sales_lead_id', ['leadId'], { unique: true })
@Index('ux_sales_live_group_offer', ['leadGroupId', 'offerId'], { unique: true, where: `"status" <> 'released'` })
@Index('ix_sales_search_status', ['searchId', 'status'])
@Index('ix_sales_group_status', ['leadGroupId', 'status'])
@Index('ix_sales_school_created', ['schoolId', 'createdAt'])
@Index('ix_sales_affiliate_created', ['affiliateId', 'createdAt'])
export class Sale {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey(() => Lead, { name: 'fk_sales_lead' })
  @Column('uuid', { name: 'lead_id' })
  leadId: string;
  @Column('uuid', { name: 'search_id', nullable: true })
  searchId: string | null;
  /** The lead whose sales count together: the search, or the first direct post. */
  @Column('uuid', { name: 'lead_group_id' }) leadGroupId: string;
  @Column('uuid', { name: 'offer_id' })
  offerId: string;
  @Column('uuid', { name: 'school_id' })
  schoolId: string;
  @Column('uuid', { name: 'campaign_id' })
  campaignId: string;
  @Column('uuid', { name: 'affiliate_id' })
  affiliateId: string;
  @Column('text', { name: 'offer_type' }) offerType: OfferType;
  @Column({ ...MONEY, nullable: true }) payout: number | null;
  @Column({ ...MONEY, nullable: true }) price: number | null;
  @Column('text') status: SaleStatus;
  /** The cap_usage rows this sale's reservation took: `[{scope, period, period_start}]`. */
  @Column('jsonb', { name: 'cap_slots', default: () => `'[]'` }) capSlots: Array<{ scope: string; period: string; period_start: string }>;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
