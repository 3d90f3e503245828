import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';

/** A partner network whose offers are asked through its own interface (partner-adapter). */
@Entity({ name: 'partners' })
@Check('ck_partners_timeout_ms', `"timeout_ms" > 0`)
export class Partner {
  @PrimaryColumn('uuid') id: string;
  @Column('text') name: string;
  @Column('text') adapter: string;
  @Column('text', { name: 'base_url' }) baseUrl: string;
  @Column('integer', { name: 'timeout_ms', default: 10000 }) timeoutMs: number;
  /** The adapter's settings (libs/domain PartnerSettings); null when it has none. */
  @Column('jsonb', { nullable: true }) settings: Record<string, unknown> | null;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
