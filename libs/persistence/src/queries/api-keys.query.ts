import { createHash } from 'node:crypto';
import type { EndpointName, RateLimit } from '@lr/contracts';
import { ENDPOINTS } from '@lr/contracts';
import type { Queryable } from './queryable';

/** How an API key is stored: lower-case hex SHA-256 of the raw key's UTF-8 bytes. */
export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey, 'utf8').digest('hex');
}

export interface ApiKeyRecord {
  id: string;
  affiliateId: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** The key's affiliate account status: a paused affiliate's keys are refused. */
  affiliateStatus: 'active' | 'paused';
  /** Per-endpoint overrides of DEFAULT_RATE_LIMITS; endpoints not listed use the defaults. */
  limits: Partial<Record<EndpointName, RateLimit>>;
}

/** The key with this hash, revoked and expired ones included (the caller decides); null when unknown. */
export async function findApiKeyByHash(db: Queryable, keyHash: string): Promise<ApiKeyRecord | null> {
  const rows: Array<{ id: string; affiliate_id: string; affiliate_status: 'active' | 'paused'; expires_at: Date | null; revoked_at: Date | null; limits: unknown }> =
    await db.query(
      `SELECT k.id, k.affiliate_id, a.status AS affiliate_status, k.expires_at, k.revoked_at, k.limits
         FROM api_keys k JOIN affiliates a ON a.id = k.affiliate_id WHERE k.key_hash = $1`,
      [keyHash],
    );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    affiliateId: row.affiliate_id,
    affiliateStatus: row.affiliate_status,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    limits: limitsFromStored(row.limits),
  };
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
