import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';
import { Offer } from './offer.entity';

/** A program of an own offer; `value` is what a submit sends as `program_id`. */
@Entity({ name: 'programs' })
export class Program {
  @ForeignKey(() => Offer, { name: 'fk_programs_offer', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid', { name: 'offer_id' })
  offerId: string;
  @PrimaryColumn('text') value: string;
  @Column('text') label: string;
  /** EligibilityRules narrowing the offer's. */
  @Column('jsonb', { default: () => `'{}'` }) eligibility: Record<string, unknown>;
  @Column('integer') position: number;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
