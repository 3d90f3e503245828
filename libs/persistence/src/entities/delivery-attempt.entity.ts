import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Lead } from './lead.entity';

/** One try to deliver a lead to the buyer's system (school or partner): when, how long, what came back. */
@Entity({ name: 'delivery_attempts' })
@Check('ck_delivery_attempts_attempt', `"attempt" >= 1`)
/** The deliveries to reconcile (ops deliveries unresolved): calls a crash cut that were not made again. */
@Index('ix_delivery_attempts_interrupted', ['startedAt'], { where: `"outcome" = 'interrupted'` })
export class DeliveryAttempt {
  @ForeignKey(() => Lead, { name: 'fk_delivery_attempts_lead' })
  @PrimaryColumn('uuid', { name: 'lead_id' })
  leadId: string;
  @PrimaryColumn('integer') attempt: number;
  @Column('timestamptz', { name: 'started_at' }) startedAt: Date;
  @Column('timestamptz', { name: 'finished_at', nullable: true }) finishedAt: Date | null;
  /** e.g. accepted, rejected, duplicate, error, timeout; null while in flight. */
  @Column('text', { nullable: true }) outcome: string | null;
  @Column('integer', { name: 'http_status', nullable: true }) httpStatus: number | null;
  @Column('integer', { name: 'latency_ms', nullable: true }) latencyMs: number | null;
  /** For operators: the buyer's own text or the failure. Never passed to the affiliate. */
  @Column('text', { nullable: true }) detail: string | null;
}
