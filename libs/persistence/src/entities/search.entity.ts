import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { IpSource } from '@lr/domain';
import { TIMESTAMP_NOW } from './column-types';
import { Affiliate } from './affiliate.entity';
import { ApiKey } from './api-key.entity';
import { Campaign } from './campaign.entity';

/**
 * A search: the lead as sent (normalized), its tracking and consent inputs, and
 * its life (open until `closes_at`, done at `processing_done_at`). `id` is the
 * contract's `svc_lead_id` of the search.
 */
@Entity({ name: 'searches' }) // partitioned by part_day (migration 1764800000000)
@Check('ck_searches_ip_source', `"ip_source" IN ('consumer', 'caller_server')`)
@Check('ck_searches_accepted_count', `"accepted_count" >= 0`)
@Check(
  'ck_searches_results',
  `cardinality(result_templates) = cardinality(result_order) AND cardinality(result_expires) = cardinality(result_order)`,
)
@Index('ix_searches_affiliate_created', ['affiliateId', 'createdAt'])
@Index('ix_searches_created_at', ['createdAt'])
@Index('ix_searches_campaign_id', ['campaignId'])
export class Search {
  @PrimaryColumn('uuid') id: string;
  /** The UTC day of the search's id (`lr_id_day`), or the kept / legacy partition's (libs/persistence/src/partitions). */
  @PrimaryColumn('date', { name: 'part_day' }) partDay: string;
  @ForeignKey(() => Affiliate, { name: 'fk_searches_affiliate' })
  @Column('uuid', { name: 'affiliate_id' })
  affiliateId: string;
  @ForeignKey(() => Campaign, { name: 'fk_searches_campaign' })
  @Column('uuid', { name: 'campaign_id' })
  campaignId: string;
  @ForeignKey(() => ApiKey, { name: 'fk_searches_api_key' })
  @Column('uuid', { name: 'api_key_id' })
  apiKeyId: string;
  @Column('boolean', { name: 'is_test', default: false }) isTest: boolean;
  @Column('jsonb') lead: Record<string, unknown>;
  @Column('jsonb', { default: () => `'{}'` }) tracking: Record<string, unknown>;
  @Column('text', { name: 'consumer_ip' }) consumerIp: string;
  /** `consumer`: tracking.ip_address; `caller_server`: no valid consumer IP, the caller's address was recorded. */
  @Column('text', { name: 'ip_source' }) ipSource: IpSource;
  @Column('boolean', { name: 'tcpa_consent', nullable: true }) tcpaConsent: boolean | null;
  @Column('text', { name: 'form_cert_url', nullable: true }) formCertUrl: string | null;
  @Column('text', { name: 'universal_lead_cert', nullable: true }) universalLeadCert: string | null;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'closes_at' }) closesAt: Date;
  @Column('timestamptz', { name: 'processing_done_at', nullable: true }) processingDoneAt: Date | null;
  @Column('integer', { name: 'accepted_count', default: 0 }) acceptedCount: number;
  @Column('boolean', { name: 'true_exclusive_accepted', default: false }) trueExclusiveAccepted: boolean;
  /** First submit of the search; afterwards requests that would change its lead are refused. */
  @Column('timestamptz', { name: 'submitted_at', nullable: true }) submittedAt: Date | null;
  /** Bumped by every change of the result list; Redis keeps only the newest version. */
  @Column('integer', { name: 'state_version', default: 0 }) stateVersion: number;
  /** offer id -> why it was or was not shown (operators only). */
  @Column('jsonb', { name: 'offer_decisions', default: () => `'{}'` }) offerDecisions: Record<string, unknown>;
  /** The result ids, best first: the order every poll shows. */
  @Column('uuid', { name: 'result_order', array: true, default: () => `'{}'` }) resultOrder: string[];
  /** Beside each result of `result_order`: the template it was built from (`result_templates.digest`). */
  @Column('uuid', { name: 'result_templates', array: true, default: () => `'{}'` }) resultTemplates: string[];
  /** Beside each result of `result_order`: when it expires. */
  @Column('timestamptz', { name: 'result_expires', array: true, default: () => `'{}'` }) resultExpires: Date[];
  /** Result id -> what a partner result needs on submit (the partner's result id, ...); never shown. Null with no partner result. */
  @Column('jsonb', { name: 'result_partner', nullable: true }) resultPartner: Record<string, unknown> | null;
  /** The lead's duplicate keys (normalized hashes; [] for a test search): partner answers re-check against them. */
  @Column('jsonb', { name: 'person_keys', nullable: true }) personKeys: Array<{ type: string; hash: string }> | null;
}
