import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';

/**
 * How much of a cap is used in one period. `scope` names what the cap bounds:
 * `offer:<offer id>` or `campaign_offer:<campaign id>:<offer id>`;
 * `period_start` is the start of the period in the cap's time zone
 * (the epoch for `total`). Reserve with `UPDATE … SET used = used + 1 WHERE used < limit`.
 */
@Entity({ name: 'cap_usage' })
@Check('ck_cap_usage_period', `"period" IN ('hour', 'day', 'week', 'month', 'total')`)
@Check('ck_cap_usage_used', `"used" >= 0`)
export class CapUsage {
  @PrimaryColumn('text') scope: string;
  @PrimaryColumn('text') period: 'hour' | 'day' | 'week' | 'month' | 'total';
  @PrimaryColumn('timestamptz', { name: 'period_start' }) periodStart: Date;
  @Column('integer', { default: 0 }) used: number;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
