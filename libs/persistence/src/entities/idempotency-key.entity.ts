import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An affiliate's Idempotency-Key on search or leads, for 24 hours (docs/idempotency.md; SQL in IdempotencyKeys). */
@Entity({ name: 'idempotency_keys' })
@Check('ck_idempotency_keys_endpoint', `"endpoint" IN ('search', 'leads')`)
@Index('idempotency_keys_created_at', ['createdAt'])
export class IdempotencyKey {
  @PrimaryColumn('uuid', { name: 'affiliate_id' }) affiliateId: string;
  @PrimaryColumn('text') endpoint: string;
  @PrimaryColumn('text', { name: 'idem_key' }) idemKey: string;
  @Column('text', { name: 'body_digest' }) bodyDigest: string;
  @Column('uuid', { name: 'lead_id' }) leadId: string;
  @Column('uuid') owner: string;
  @Column('timestamptz', { name: 'lease_until' }) leaseUntil: Date;
  @Column('smallint', { name: 'answer_status', nullable: true }) answerStatus: number | null;
  @Column('jsonb', { nullable: true }) answer: unknown;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
}
