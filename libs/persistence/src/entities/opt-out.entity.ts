import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';

/** One opt-out request as received (docs/opt-outs.md): the hashes of the normalized email and phone, never the raw values. */
@Entity({ name: 'opt_outs' })
@Check('ck_opt_outs_source', `"source" IN ('affiliate', 'operator', 'deletion')`)
@Check('ck_opt_outs_reference', `char_length("reference") <= 200`)
@Check('ck_opt_outs_email', `"email_sha256" ~ '^[0-9a-f]{64}$'`)
@Check('ck_opt_outs_phone', `"phone_sha256" ~ '^[0-9a-f]{64}$'`)
@Check('ck_opt_outs_key', `"email_sha256" IS NOT NULL OR "phone_sha256" IS NOT NULL`)
@Index('ix_opt_outs_recorded_at', ['recordedAt'])
export class OptOut {
  @PrimaryColumn('uuid') id: string;
  /** When the request reached us: the revocation deadline runs from here. */
  @Column('timestamptz', { name: 'received_at' }) receivedAt: Date;
  /** When its buyers' revocation notices are due (libs/domain revocationDueAt). */
  @Column('timestamptz', { name: 'due_at' }) dueAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'recorded_at' }) recordedAt: Date;
  @Column('text') source: string;
  @Column('uuid', { name: 'affiliate_id', nullable: true }) affiliateId: string | null;
  @Column('uuid', { name: 'api_key_id', nullable: true }) apiKeyId: string | null;
  @Column('text', { nullable: true }) reference: string | null;
  /** Whose delivery service relays its notices: the recording system's AMQP_PREFIX. */
  @Column('text') relay: string;
  @Column('char', { name: 'email_sha256', length: 64, nullable: true }) emailSha256: string | null;
  @Column('char', { name: 'phone_sha256', length: 64, nullable: true }) phoneSha256: string | null;
}

/** A key suppressed now: searches show the person nothing, submits are refused. */
@Entity({ name: 'suppressions' })
@Check('ck_suppressions_key_type', `"key_type" IN ('email', 'phone')`)
@Check('ck_suppressions_key_hash', `"key_hash" ~ '^[0-9a-f]{64}$'`)
export class Suppression {
  @PrimaryColumn('text', { name: 'key_type' }) keyType: string;
  @PrimaryColumn('char', { name: 'key_hash', length: 64 }) keyHash: string;
  @ForeignKey(() => OptOut, { name: 'fk_suppressions_opt_out' })
  @Column('uuid', { name: 'opt_out_id' })
  optOutId: string;
  @Column({ ...TIMESTAMP_NOW, name: 'suppressed_at' }) suppressedAt: Date;
}

/** Who suppressed or lifted which key, when and why. */
@Entity({ name: 'suppression_audit' })
@Check('ck_suppression_audit_action', `"action" IN ('suppress', 'lift')`)
@Index('ix_suppression_audit_key', ['keyType', 'keyHash'])
export class SuppressionAudit {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id: string;
  @Column({ ...TIMESTAMP_NOW }) at: Date;
  @Column('text') action: string;
  @Column('text', { name: 'key_type' }) keyType: string;
  @Column('char', { name: 'key_hash', length: 64 }) keyHash: string;
  @Column('uuid', { name: 'opt_out_id', nullable: true }) optOutId: string | null;
  @Column('text') actor: string;
  @Column('text', { nullable: true }) reason: string | null;
}

/** One revocation notice per lead a buyer accepted: the outbox the delivery service relays, and the buyer's receipt. */
@Entity({ name: 'revocation_notices' })
@Check('ck_revocation_notices_buyer_kind', `"buyer_kind" IN ('school', 'partner')`)
@Index('ux_revocation_notices_lead_id', ['leadId'], { unique: true })
@Index('ix_revocation_notices_unqueued', ['createdAt'], { where: '"queued_at" IS NULL' })
@Index('ix_revocation_notices_open', ['dueAt'], { where: '"acknowledged_at" IS NULL' })
export class RevocationNotice {
  @PrimaryColumn('uuid') id: string;
  @ForeignKey(() => OptOut, { name: 'fk_revocation_notices_opt_out' })
  @Column('uuid', { name: 'opt_out_id' })
  optOutId: string;
  @Column('uuid', { name: 'lead_id' }) leadId: string;
  @Column('uuid', { name: 'offer_id' }) offerId: string;
  @Column('text', { name: 'buyer_kind' }) buyerKind: string;
  @Column('uuid', { name: 'buyer_id' }) buyerId: string;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'due_at' }) dueAt: Date;
  @Column('timestamptz', { name: 'queued_at', nullable: true }) queuedAt: Date | null;
  @Column('integer', { default: 0 }) attempts: number;
  @Column('timestamptz', { name: 'sending_until', nullable: true }) sendingUntil: Date | null;
  @Column('text', { name: 'last_error', nullable: true }) lastError: string | null;
  @Column('timestamptz', { name: 'acknowledged_at', nullable: true }) acknowledgedAt: Date | null;
  @Column('jsonb', { nullable: true }) receipt: Record<string, unknown> | null;
}
