import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';

/**
 * One consent event of a live lead in the consent ledger (docs/consent-ledger.md):
 * appended with its consent evidence, then given its place in the hash chain
 * by the chainer. No foreign key: the append is on the submit path.
 */
@Entity({ name: 'consent_ledger' })
@Check(
  'ck_consent_ledger_link',
  `("position" IS NULL AND "record_hash" IS NULL AND "prev_digest" IS NULL AND "digest" IS NULL AND "chained_at" IS NULL)
          OR ("position" >= 1 AND "record_hash" IS NOT NULL AND "prev_digest" IS NOT NULL AND "digest" IS NOT NULL AND "chained_at" IS NOT NULL)`,
)
@Index('ux_consent_ledger_lead_id', ['leadId'], { unique: true })
@Index('ux_consent_ledger_position', ['position'], { unique: true, where: '"position" IS NOT NULL' })
@Index('ix_consent_ledger_unchained', ['seq'], { where: '"position" IS NULL' })
@Index('ix_consent_ledger_chained_at', ['chainedAt'], { where: '"chained_at" IS NOT NULL' })
@Index('ix_consent_ledger_email', ['emailSha256'], { where: '"email_sha256" IS NOT NULL' })
@Index('ix_consent_ledger_phone', ['phoneSha256'], { where: '"phone_sha256" IS NOT NULL' })
export class ConsentLedgerRecord {
  /** Append order. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) seq: string;
  @Column('uuid', { name: 'lead_id' }) leadId: string;
  @Column('uuid', { name: 'school_id', nullable: true }) schoolId: string | null;
  /** sha256 of the normalized email / phone (docs/duplicates.md); never the raw values. */
  @Column('char', { name: 'email_sha256', length: 64, nullable: true }) emailSha256: string | null;
  @Column('char', { name: 'phone_sha256', length: 64, nullable: true }) phoneSha256: string | null;
  @Column({ ...TIMESTAMP_NOW, name: 'appended_at' }) appendedAt: Date;
  /** The chain's columns, set once by the chainer. */
  @Column('bigint', { nullable: true }) position: string | null;
  @Column('char', { name: 'record_hash', length: 64, nullable: true }) recordHash: string | null;
  @Column('char', { name: 'prev_digest', length: 64, nullable: true }) prevDigest: string | null;
  @Column('char', { length: 64, nullable: true }) digest: string | null;
  @Column('timestamptz', { name: 'chained_at', nullable: true }) chainedAt: Date | null;
}
