import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';
import { CampaignOffer } from './campaign-offer.entity';
import { Offer } from './offer.entity';

/**
 * A cap: with `campaign_id` null it bounds the offer across all campaigns,
 * otherwise that campaign's use of the offer. Counted per period in `timezone`
 * (usage in cap_usage). At most one cap per scope and period.
 */
@Entity({ name: 'caps' })
@Check('ck_caps_period', `"period" IN ('hour', 'day', 'week', 'month', 'total')`)
@Check('ck_caps_limit', `"limit" >= 0`)
@Index('ux_caps_offer_period', ['offerId', 'period'], { unique: true, where: `"campaign_id" IS NULL` })
@Index('ux_caps_campaign_offer_period', ['campaignId', 'offerId', 'period'], { unique: true, where: `"campaign_id" IS NOT NULL` })
@ForeignKey(() => CampaignOffer, ['campaignId', 'offerId'], ['campaignId', 'offerId'], {
  name: 'fk_caps_campaign_offer',
  onDelete: 'CASCADE',
})
export class Cap {
  @PrimaryGeneratedColumn('uuid') id: string;
  @ForeignKey(() => Offer, { name: 'fk_caps_offer', onDelete: 'CASCADE' })
  @Column('uuid', { name: 'offer_id' })
  offerId: string;
  @Column('uuid', { name: 'campaign_id', nullable: true }) campaignId: string | null;
  @Column('text') period: 'hour' | 'day' | 'week' | 'month' | 'total';
  @Column('integer') limit: number;
  @Column('text', { default: 'America/New_York' }) timezone: string;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
