import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { MONEY, TIMESTAMP_NOW } from './column-types';
import { Campaign } from './campaign.entity';
import { Offer } from './offer.entity';

/**
 * An offer on a campaign with the affiliate's payout. Both payouts null: no
 * payout is configured, so `payout` is absent from results and accepted submits.
 */
@Entity({ name: 'campaign_offers' })
@Check('ck_campaign_offers_payout', `"payout" >= 0`)
@Index('ix_campaign_offers_offer_id', ['offerId'])
export class CampaignOffer {
  @ForeignKey(() => Campaign, { name: 'fk_campaign_offers_campaign', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid', { name: 'campaign_id' })
  campaignId: string;
  @ForeignKey(() => Offer, { name: 'fk_campaign_offers_offer', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid', { name: 'offer_id' })
  offerId: string;
  @Column({ ...MONEY, nullable: true }) payout: number | null;
  /** Program value → payout; wins over `payout` for that program. */
  @Column('jsonb', { name: 'program_payouts', nullable: true }) programPayouts: Record<string, number> | null;
  @Column('integer') position: number;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
