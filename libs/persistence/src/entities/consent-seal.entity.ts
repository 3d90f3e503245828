import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';

/** The consent chain's head when a UTC day was over (docs/consent-ledger.md): how many records, and the head's digest. */
@Entity({ name: 'consent_seals' })
@Check('ck_consent_seals_count', `"count" >= 1`)
export class ConsentSeal {
  @PrimaryColumn('date') day: string;
  @Column('bigint') count: string;
  @Column('char', { name: 'head_digest', length: 64 }) headDigest: string;
  @Column({ ...TIMESTAMP_NOW, name: 'sealed_at' }) sealedAt: Date;
}
