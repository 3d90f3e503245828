import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';
import { Affiliate } from './affiliate.entity';

/** An affiliate's campaign: which offers its searches cover and what it is paid. */
@Entity({ name: 'campaigns' })
@Check('ck_campaigns_status', `"status" IN ('active', 'paused')`)
@Index('ix_campaigns_affiliate_id', ['affiliateId'])
export class Campaign {
  @PrimaryColumn('uuid') id: string;
  @ForeignKey(() => Affiliate, { name: 'fk_campaigns_affiliate' })
  @Column('uuid', { name: 'affiliate_id' })
  affiliateId: string;
  @Column('text') name: string;
  @Column('text') status: 'active' | 'paused';
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
