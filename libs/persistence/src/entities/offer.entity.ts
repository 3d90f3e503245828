import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { OfferType } from '@lr/domain';
import { MONEY, TIMESTAMP_NOW } from './column-types';
import { Partner } from './partner.entity';
import { School } from './school.entity';

/**
 * An offer of a school: own (delivered to the school's system) or a partner's
 * (asked through the partner network). `price` is what the buyer pays the
 * service and is never shown to an affiliate.
 */
@Entity({ name: 'offers' })
@Check('ck_offers_source', `"source" IN ('own', 'partner')`)
@Check('ck_offers_offer_type', `"offer_type" IN ('shared', 'exclusive', 'true_exclusive')`)
@Check('ck_offers_status', `"status" IN ('active', 'paused')`)
@Check(
  'ck_offers_source_shape',
  `("source" = 'own' AND "partner_id" IS NULL AND "delivery" IS NOT NULL)
   OR ("source" = 'partner' AND "partner_id" IS NOT NULL AND "external_id" IS NOT NULL AND "delivery" IS NULL AND "price" IS NULL)`,
)
@Check('ck_offers_price', `"price" >= 0`)
@Check('ck_offers_result_ttl_seconds', `"result_ttl_seconds" > 0`)
@Check('ck_offers_duplicate_window_days', `"duplicate_window_days" >= 0`)
@Index('ix_offers_school_id', ['schoolId'])
@Index('ux_offers_partner_external_id', ['partnerId', 'externalId'], { unique: true, where: `"source" = 'partner'` })
export class Offer {
  @PrimaryColumn('uuid') id: string;
  @Column('text') name: string;
  @ForeignKey(() => School, { name: 'fk_offers_school' })
  @Column('uuid', { name: 'school_id' })
  schoolId: string;
  @Column('text') source: 'own' | 'partner';
  @ForeignKey(() => Partner, { name: 'fk_offers_partner' })
  @Column('uuid', { name: 'partner_id', nullable: true })
  partnerId: string | null;
  /** The partner's id of the offer (or the school's own code of an own offer). */
  @Column('text', { name: 'external_id', nullable: true }) externalId: string | null;
  @Column('text', { name: 'offer_type' }) offerType: OfferType;
  @Column('text') status: 'active' | 'paused';
  @Column('integer', { default: 0 }) priority: number;
  @Column({ ...MONEY, nullable: true }) price: number | null;
  @Column('text', { name: 'tcpa_text', nullable: true }) tcpaText: string | null;
  @Column('integer', { name: 'result_ttl_seconds', default: 900 }) resultTtlSeconds: number;
  @Column('integer', { name: 'duplicate_window_days', default: 30 }) duplicateWindowDays: number;
  /** EligibilityRules of libs/domain/src/catalog. */
  @Column('jsonb', { default: () => `'{}'` }) eligibility: Record<string, unknown>;
  /** DeliverySettings of libs/domain/src/catalog; own offers only. */
  @Column('jsonb', { nullable: true }) delivery: Record<string, unknown> | null;
  /** CatalogReturnPolicy of libs/domain/src/catalog; own offers only; null: the offer takes no returns (docs/returns.md). */
  @Column('jsonb', { nullable: true }) returns: Record<string, unknown> | null;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
