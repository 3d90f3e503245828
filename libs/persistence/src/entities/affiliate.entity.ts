import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';

@Entity({ name: 'affiliates' })
@Check('ck_affiliates_status', `"status" IN ('active', 'paused')`)
export class Affiliate {
  @PrimaryColumn('uuid') id: string;
  @Column('text') name: string;
  @Column('text') status: 'active' | 'paused';
  /** Whether the duplicate pre-check endpoint is available to this affiliate. */
  @Column('boolean', { name: 'dupe_check', default: false }) dupeCheck: boolean;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
