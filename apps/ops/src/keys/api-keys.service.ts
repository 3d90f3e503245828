import { randomUUID } from 'node:crypto';
import type { EndpointName, RateLimit } from '@lr/contracts';
import { ApiKeyRepository, CatalogRepository, hashApiKey, isUuid, limitsToStored, Queryable } from '@lr/persistence';
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
  await new ApiKeyRepository(db).insert({
    id,
    affiliateId: input.affiliateId.toLowerCase(),
    keyHash: hashApiKey(key),
    prefix: keyPrefix(key),
    expiresAt: input.expiresAt ?? null,
    limits: input.limits ?? {},
  });
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
  const revoked = await new ApiKeyRepository(db).revoke(keyId);
  if (!revoked) throw new CliError(`unknown key ${keyId}`);
  return { id: revoked.id, revoked_at: revoked.revokedAt.toISOString(), newly_revoked: revoked.newlyRevoked };
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
  const rows = await new ApiKeyRepository(db).ofAffiliate(affiliateId);
  return rows.map((r) => ({
    id: r.id,
    affiliate_id: r.affiliateId,
    prefix: r.prefix,
    state: r.revokedAt ? 'revoked' : r.expiresAt && r.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active',
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt?.toISOString() ?? null,
    revoked_at: r.revokedAt?.toISOString() ?? null,
    limits: limitsToStored(r.limits),
  }));
}

async function requireAffiliate(db: Queryable, affiliateId: string): Promise<void> {
  if (!isUuid(affiliateId)) throw new CliError(`--affiliate ${JSON.stringify(affiliateId)}: must be a UUID`);
  if (!(await new CatalogRepository(db).affiliate(affiliateId))) {
    throw new CliError(`unknown affiliate ${affiliateId}: apply a catalog that defines it first (npm run ops -- catalog apply <file>)`);
  }
}
