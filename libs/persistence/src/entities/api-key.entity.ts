import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';
import { Affiliate } from './affiliate.entity';
import { School } from './school.entity';

/** Per-endpoint rate-limit overrides as stored: `{ "search": { "per_minute": 120, "burst": 20 } }`. */
export type StoredKeyLimits = Partial<Record<string, { per_minute: number; burst: number }>>;

/**
 * An API key of an affiliate (the contract's endpoints) or of a school (the
 * buyer API: docs/returns.md), never both. Only the SHA-256 of the raw key is
 * kept; the raw key is shown once when issued.
 */
@Entity({ name: 'api_keys' })
@Check('ck_api_keys_key_hash', `"key_hash" ~ '^[0-9a-f]{64}$'`)
@Check('ck_api_keys_owner', `("affiliate_id" IS NULL) <> ("school_id" IS NULL)`)
@Index('ux_api_keys_key_hash', ['keyHash'], { unique: true })
@Index('ix_api_keys_affiliate_id', ['affiliateId'])
@Index('ix_api_keys_school_id', ['schoolId'])
export class ApiKey {
  @PrimaryColumn('uuid') id: string;
  @ForeignKey(() => Affiliate, { name: 'fk_api_keys_affiliate' })
  @Column('uuid', { name: 'affiliate_id', nullable: true })
  affiliateId: string | null;
  @ForeignKey(() => School, { name: 'fk_api_keys_school' })
  @Column('uuid', { name: 'school_id', nullable: true })
  schoolId: string | null;
  /** Lower-case hex SHA-256 of the raw key (UTF-8). */
  @Column('text', { name: 'key_hash' }) keyHash: string;
  /** First 8 characters of the raw key, to recognise a key in listings. */
  @Column('text', { name: 'key_prefix' }) keyPrefix: string;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
  @Column('jsonb', { default: () => `'{}'` }) limits: StoredKeyLimits;
}
