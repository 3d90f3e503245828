import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { Lead } from './lead.entity';

/**
 * The dedupe index: for each accepted lead, the SHA-256 (lower-case hex) of
 * each normalized identity key (`email`, `phone`, `name_zip_dob`, …). A person
 * is a duplicate for an offer when a key matches within the offer's
 * duplicate window; the raw values never enter this table. Its offer, school
 * and affiliate are its lead's (checked by the lead's foreign keys).
 */
@Entity({ name: 'dedupe_keys' })
@Check('ck_dedupe_keys_key_hash', `"key_hash" ~ '^[0-9a-f]{64}$'`)
@Index('ix_dedupe_keys_offer', ['keyType', 'keyHash', 'offerId'])
@Index('ix_dedupe_keys_accepted', ['keyType', 'keyHash', 'acceptedAt'])
export class DedupeKey {
  @ForeignKey(() => Lead, { name: 'fk_dedupe_keys_lead' })
  @PrimaryColumn('uuid', { name: 'lead_id' })
  leadId: string;
  @PrimaryColumn('text', { name: 'key_type' }) keyType: string;
  @Column('char', { name: 'key_hash', length: 64 }) keyHash: string;
  @Column('uuid', { name: 'offer_id' })
  offerId: string;
  @Column('uuid', { name: 'school_id' })
  schoolId: string;
  @Column('uuid', { name: 'affiliate_id' })
  affiliateId: string;
  @Column('timestamptz', { name: 'accepted_at' }) acceptedAt: Date;
}
