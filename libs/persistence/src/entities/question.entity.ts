import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';
import { Offer } from './offer.entity';

/** A question (the contract's `form_fields[]`) an own offer needs answered on submit. */
@Entity({ name: 'questions' })
@Check('ck_questions_type', `"type" IN ('select', 'text', 'number')`)
@Check('ck_questions_select_options', `("type" = 'select') = ("options" IS NOT NULL)`)
export class Question {
  @ForeignKey(() => Offer, { name: 'fk_questions_offer', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid', { name: 'offer_id' })
  offerId: string;
  @PrimaryColumn('text') name: string;
  @Column('text', { nullable: true }) label: string | null;
  @Column('text') type: 'select' | 'text' | 'number';
  @Column('boolean') required: boolean;
  /** `{ "program_ids": [...] }`: required only when one of these programs is chosen. */
  @Column('jsonb', { name: 'required_when', nullable: true }) requiredWhen: { program_ids: string[] } | null;
  /** `[{ "value", "label" }]` of a select question. */
  @Column('jsonb', { nullable: true }) options: Array<{ value: string; label: string }> | null;
  @Column('integer') position: number;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
