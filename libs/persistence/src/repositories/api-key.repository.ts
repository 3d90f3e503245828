import { createHash } from 'node:crypto';
import type { EndpointName, RateLimit } from '@lr/contracts';
import { ENDPOINTS } from '@lr/contracts';
import type { Queryable } from '../queries/queryable';
import { filled, run, statement } from '../queries/sql';

/** How an API key is stored: lower-case hex SHA-256 of the raw key's UTF-8 bytes. The raw key is never stored. */
export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey, 'utf8').digest('hex');
}

export interface ApiKeyRecord {
  id: string;
  /** An affiliate's key (the contract's endpoints): its affiliate; null for a school's key. */
  affiliateId: string | null;
  /** A school's key (the buyer API, docs/returns.md): its school; null for an affiliate's key. */
  schoolId: string | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** The key's affiliate account status: a paused affiliate's keys are refused. Null for a school's key. */
  affiliateStatus: 'active' | 'paused' | null;
  /** Per-endpoint overrides of DEFAULT_RATE_LIMITS; endpoints not listed use the defaults. */
  limits: Partial<Record<EndpointName, RateLimit>>;
}

/** A key as `keys list` shows it: never the hash or the key. */
export interface StoredKey {
  id: string;
  affiliateId: string | null;
  schoolId: string | null;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  limits: Partial<Record<EndpointName, RateLimit>>;
}

/** `{ "search": { "per_minute": 120, "burst": 20 } }` → `{ search: { perMinute: 120, burst: 20 } }`; unknown entries are ignored. */
export function limitsFromStored(stored: unknown): Partial<Record<EndpointName, RateLimit>> {
  const out: Partial<Record<EndpointName, RateLimit>> = {};
  if (typeof stored !== 'object' || stored === null) return out;
  for (const endpoint of ENDPOINTS) {
    const v = (stored as Record<string, unknown>)[endpoint] as { per_minute?: unknown; burst?: unknown } | undefined;
    if (v && Number.isInteger(v.per_minute) && Number.isInteger(v.burst)) {
      out[endpoint] = { perMinute: v.per_minute as number, burst: v.burst as number };
    }
  }
  return out;
}

export function limitsToStored(limits: Partial<Record<EndpointName, RateLimit>>): Record<string, { per_minute: number; burst: number }> {
  const out: Record<string, { per_minute: number; burst: number }> = {};
  for (const endpoint of ENDPOINTS) {
    const l = limits[endpoint];
    if (l) out[endpoint] = { per_minute: l.perMinute, burst: l.burst };
  }
  return out;
}

/** Statements of this repository (prepared per connection: queries/sql.ts). */
const KEY_BY_HASH = statement(
  'keyByHash',
  `SELECT k.id, k.affiliate_id, k.school_id, a.status AS affiliate_status, k.expires_at, k.revoked_at, k.limits
           FROM api_keys k LEFT JOIN affiliates a ON a.id = k.affiliate_id WHERE k.key_hash = $1`,
);

const INSERT_KEY = statement(
  'insertKey',
  `INSERT INTO api_keys (id, affiliate_id, school_id, key_hash, key_prefix, expires_at, limits) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
);

const REVOKE_KEY = statement(
  'revokeKey',
  `WITH revoked AS (UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id, revoked_at)
       SELECT id, revoked_at, true AS newly FROM revoked
       UNION ALL
       SELECT id, revoked_at, false FROM api_keys WHERE id = $1 AND revoked_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM revoked)`,
);

const KEYS_OF_OWNER = statement(
  'keysOfOwner',
  `SELECT id, affiliate_id, school_id, key_prefix, created_at, expires_at, revoked_at, limits
           FROM api_keys WHERE affiliate_id = $1 OR school_id = $2 ORDER BY created_at, id`,
);

/** Whose key: an affiliate's or a school's. */
export type KeyOwner = { affiliateId: string } | { schoolId: string };

/** API keys (`api_keys`), stored only as SHA-256 hashes: an affiliate's, or a school's for the buyer API. */
export class ApiKeyRepository {
  constructor(private readonly db: Queryable) {}

  /** The key with this hash, revoked and expired ones included (the caller decides); null when unknown. */
  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const rows = await run(this.db, KEY_BY_HASH, [keyHash]);
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      affiliateId: row.affiliate_id,
      schoolId: row.school_id,
      affiliateStatus: row.affiliate_status,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      limits: limitsFromStored(row.limits),
    };
  }

  async insert(k: {
    id: string;
    owner: KeyOwner;
    keyHash: string;
    prefix: string;
    expiresAt: Date | null;
    limits: Partial<Record<EndpointName, RateLimit>>;
  }): Promise<void> {
    const { affiliateId, schoolId } = ownerColumns(k.owner);
    await run(this.db, INSERT_KEY, [
      k.id,
      affiliateId,
      schoolId,
      k.keyHash,
      k.prefix,
      k.expiresAt,
      JSON.stringify(limitsToStored(k.limits)),
    ]);
  }

  /**
   * Revokes the key now unless it was revoked before (the first time is kept).
   * Null when there is no such key.
   */
  async revoke(keyId: string): Promise<{ id: string; revokedAt: Date; newlyRevoked: boolean } | null> {
    const rows = await run(this.db, REVOKE_KEY, [keyId]);
    const r = rows[0];
    return r ? { id: filled(r.id, 'id'), revokedAt: filled(r.revoked_at, 'revoked_at'), newlyRevoked: r.newly === true } : null;
  }

  /** The affiliate's or the school's keys, oldest first. */
  async ofOwner(owner: KeyOwner): Promise<StoredKey[]> {
    const { affiliateId, schoolId } = ownerColumns(owner);
    const rows = await run(this.db, KEYS_OF_OWNER, [affiliateId, schoolId]);
    return rows.map((r) => ({
      id: r.id,
      affiliateId: r.affiliate_id,
      schoolId: r.school_id,
      prefix: r.key_prefix,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      revokedAt: r.revoked_at,
      limits: limitsFromStored(r.limits),
    }));
  }
}

function ownerColumns(owner: KeyOwner): { affiliateId: string | null; schoolId: string | null } {
  return 'affiliateId' in owner ? { affiliateId: owner.affiliateId, schoolId: null } : { affiliateId: null, schoolId: owner.schoolId };
}
