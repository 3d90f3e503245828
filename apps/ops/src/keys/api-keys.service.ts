import { randomUUID } from 'node:crypto';
import type { EndpointName, RateLimit } from '@lr/contracts';
import { findAffiliate, hashApiKey, isUuid, limitsFromStored, limitsToStored, Queryable } from '@lr/persistence';
import { CliError } from '../cli-error';
import { generateApiKey, keyPrefix } from './api-key-format';

export interface IssueKeyInput {
  affiliateId: string;
  expiresAt?: Date | null;
  limits?: Partial<Record<EndpointName, RateLimit>>;
}

export interface IssuedKey {
  id: string;
  /** The raw key: shown once, never stored. */
  key: string;
}

/** Issues a key for an existing affiliate; only its SHA-256 is stored. */
export async function issueApiKey(db: Queryable, input: IssueKeyInput, now: Date = new Date()): Promise<IssuedKey> {
  await requireAffiliate(db, input.affiliateId);
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
    throw new CliError(`--expires-at ${input.expiresAt.toISOString()}: must be in the future`);
  }
  const id = randomUUID();
  const key = generateApiKey();
  await db.query(
    `INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix, expires_at, limits) VALUES ($1, $2, $3, $4, $5, $6::jsonb)`,
    [id, input.affiliateId.toLowerCase(), hashApiKey(key), keyPrefix(key), input.expiresAt ?? null, JSON.stringify(limitsToStored(input.limits ?? {}))],
  );
  return { id, key };
}

export interface RevokedKey {
  id: string;
  revoked_at: string;
  /** False when the key had been revoked before (its first revocation time is kept). */
  newly_revoked: boolean;
}

/** Revokes a key at once (the gateway checks on every call). Revoking twice keeps the first time. */
export async function revokeApiKey(db: Queryable, keyId: string): Promise<RevokedKey> {
  if (!isUuid(keyId)) throw new CliError(`key id ${JSON.stringify(keyId)}: must be a UUID (the "id" printed by keys issue)`);
  const updated: Array<{ id: string; revoked_at: Date }> = await db.query(
    // Wrapped in a SELECT: TypeORM answers a bare UPDATE with [rows, count] instead of the rows.
    `WITH revoked AS (UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id, revoked_at)
     SELECT id, revoked_at FROM revoked`,
    [keyId],
  );
  if (updated[0]) return { id: updated[0].id, revoked_at: updated[0].revoked_at.toISOString(), newly_revoked: true };
  const existing: Array<{ id: string; revoked_at: Date | null }> = await db.query('SELECT id, revoked_at FROM api_keys WHERE id = $1', [keyId]);
  if (!existing[0]?.revoked_at) throw new CliError(`unknown key ${keyId}`);
  return { id: existing[0].id, revoked_at: existing[0].revoked_at.toISOString(), newly_revoked: false };
}

export interface KeyListing {
  id: string;
  affiliate_id: string;
  prefix: string;
  state: 'active' | 'expired' | 'revoked';
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  /** Overrides per endpoint; endpoints not listed use the contract's defaults. */
  limits: Record<string, { per_minute: number; burst: number }>;
}

/** The affiliate's keys, oldest first; never the hash or the key. */
export async function listApiKeys(db: Queryable, affiliateId: string, now: Date = new Date()): Promise<KeyListing[]> {
  await requireAffiliate(db, affiliateId);
  const rows: Array<{
    id: string;
    affiliate_id: string;
    key_prefix: string;
    created_at: Date;
    expires_at: Date | null;
    revoked_at: Date | null;
    limits: unknown;
  }> = await db.query(
    `SELECT id, affiliate_id, key_prefix, created_at, expires_at, revoked_at, limits
       FROM api_keys WHERE affiliate_id = $1 ORDER BY created_at, id`,
    [affiliateId],
  );
  return rows.map((r) => ({
    id: r.id,
    affiliate_id: r.affiliate_id,
    prefix: r.key_prefix,
    state: r.revoked_at ? 'revoked' : r.expires_at && r.expires_at.getTime() <= now.getTime() ? 'expired' : 'active',
    created_at: r.created_at.toISOString(),
    expires_at: r.expires_at?.toISOString() ?? null,
    revoked_at: r.revoked_at?.toISOString() ?? null,
    limits: limitsToStored(limitsFromStored(r.limits)),
  }));
}

async function requireAffiliate(db: Queryable, affiliateId: string): Promise<void> {
  if (!isUuid(affiliateId)) throw new CliError(`--affiliate ${JSON.stringify(affiliateId)}: must be a UUID`);
  if (!(await findAffiliate(db, affiliateId))) {
    throw new CliError(`unknown affiliate ${affiliateId}: apply a catalog that defines it first (npm run ops -- catalog apply <file>)`);
  }
}
