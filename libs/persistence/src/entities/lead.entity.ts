import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { IpSource, LeadKind } from '@lr/domain';
import { MONEY, TIMESTAMP_NOW } from './column-types';
import { Affiliate } from './affiliate.entity';
import { ApiKey } from './api-key.entity';
import { Campaign } from './campaign.entity';
import { Offer } from './offer.entity';

/**
 * One submit (of a search result) or one direct post: every call to the leads
 * endpoint that gets a decision is its own row. `id` is the submit answer's
 * `svc_lead_id`. `status`/`code`/`reason` are the contract's outcome vocabulary.
 */
@Entity({ name: 'leads' })
@Check('ck_leads_kind', `"kind" IN ('result_submit', 'direct_post')`)
@Check(
  'ck_leads_kind_links',
  `("kind" = 'result_submit' AND "search_id" IS NOT NULL AND "result_id" IS NOT NULL)
   OR ("kind" = 'direct_post' AND "result_id" IS NULL)`,
)
@Check('ck_leads_status', `"status" IN ('accepted', 'saved', 'pending', 'held', 'rejected', 'invalid', 'failed')`)
@Check('ck_leads_ip_source', `"ip_source" IN ('consumer', 'caller_server')`)
@Check('ck_leads_payout', `"payout" >= 0`)
@Index('ix_leads_search_id', ['searchId'])
@Index('ix_leads_result_id', ['resultId'])
@Index('ix_leads_affiliate_created', ['affiliateId', 'createdAt'])
@Index('ix_leads_created_at', ['createdAt'])
@Index('ix_leads_pending_created_at', ['createdAt'], { where: `"status" = 'pending'` })
@Index('ix_leads_offer_id', ['offerId'])
@Index('ix_leads_lead_group', ['leadGroupId'])
@Check('ck_leads_decided_by', `"decided_by" IN ('service', 'buyer')`)
export class Lead {
  @PrimaryColumn('uuid') id: string;
  /** The search (no foreign key: `searches` is partitioned; the retention run keeps every search a lead names). */
  @Column('uuid', { name: 'search_id', nullable: true })
  searchId: string | null;
  /** The result submitted (a row of the `results` view of its search). */
  @Column('uuid', { name: 'result_id', nullable: true })
  resultId: string | null;
  @Column('text') kind: LeadKind;
  /** The lead whose sales count together: the search, or the first direct post (a retry joins its group). */
  @Column('uuid', { name: 'lead_group_id' }) leadGroupId: string;
  /** A direct-post retry: the earlier post it named as `svc_lead_id`. */
  @ForeignKey(() => Lead, { name: 'fk_leads_origin_lead' })
  @Column('uuid', { name: 'origin_lead_id', nullable: true })
  originLeadId: string | null;
  @ForeignKey(() => Affiliate, { name: 'fk_leads_affiliate' })
  @Column('uuid', { name: 'affiliate_id' })
  affiliateId: string;
  @ForeignKey(() => Campaign, { name: 'fk_leads_campaign' })
  @Column('uuid', { name: 'campaign_id' })
  campaignId: string;
  @ForeignKey(() => Offer, { name: 'fk_leads_offer' })
  @Column('uuid', { name: 'offer_id' })
  offerId: string;
  @ForeignKey(() => ApiKey, { name: 'fk_leads_api_key' })
  @Column('uuid', { name: 'api_key_id' })
  apiKeyId: string;
  /** The chosen `programs[].value`. */
  @Column('text', { name: 'program_id', nullable: true }) programId: string | null;
  /** Answers to the offer's questions, by question name. */
  @Column('jsonb', { default: () => `'{}'` }) answers: Record<string, unknown>;
  /** The lead as delivered: the search's lead with the submit's changes, or the posted lead. */
  @Column('jsonb') lead: Record<string, unknown>;
  @Column('jsonb', { default: () => `'{}'` }) tracking: Record<string, unknown>;
  @Column('text', { name: 'consumer_ip' }) consumerIp: string;
  @Column('text', { name: 'ip_source', default: 'consumer' }) ipSource: IpSource;
  @Column('boolean', { name: 'is_test', default: false }) isTest: boolean;
  @Column('text') status: string;
  @Column('text', { nullable: true }) code: string | null;
  @Column('text', { nullable: true }) reason: string | null;
  /** The payout booked when accepted; null when none is configured. */
  @Column({ ...MONEY, nullable: true }) payout: number | null;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'decided_at', nullable: true }) decidedAt: Date | null;
  /** Who decided: the service's checks or the buyer's system. */
  @Column('text', { name: 'decided_by', nullable: true }) decidedBy: 'service' | 'buyer' | null;
  /** The request field a refusal is about (e.g. a question's name). */
  @Column('text', { nullable: true }) field: string | null;
}
