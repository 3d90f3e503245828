import { randomUUID } from 'node:crypto';
import type { EndpointName, RateLimit } from '@lr/contracts';
import { ApiKeyRepository, CatalogRepository, hashApiKey, isUuid, KeyOwner, limitsToStored, Queryable } from '@lr/persistence';
import { CliError } from '../cli-error';
import { generateApiKey, keyPrefix } from './api-key-format';

export interface IssueKeyInput {
  /** An affiliate's key (the contract's endpoints)... */
  affiliateId?: string;
  /** ...or a school's (the buyer API: docs/returns.md); exactly one of the two. */
  schoolId?: string;
  expiresAt?: Date | null;
  limits?: Partial<Record<EndpointName, RateLimit>>;
}

export interface IssuedKey {
  id: string;
  /** The raw key: shown once, never stored. */
  key: string;
}

/** Issues a key for an existing affiliate or school; only its SHA-256 is stored. */
export async function issueApiKey(db: Queryable, input: IssueKeyInput, now: Date = new Date()): Promise<IssuedKey> {
  const owner = await requireOwner(db, ownerOf(input));
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
    throw new CliError(`--expires-at ${input.expiresAt.toISOString()}: must be in the future`);
  }
  const id = randomUUID();
  const key = generateApiKey();
  await new ApiKeyRepository(db).insert({
    id,
    owner,
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

/** A key as `keys list` prints it: its owner as `affiliate_id` or `school_id`. */
export type KeyListing = ({ id: string; affiliate_id: string } | { id: string; school_id: string }) & {
  prefix: string;
  state: 'active' | 'expired' | 'revoked';
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  /** Overrides per endpoint; endpoints not listed use the defaults. */
  limits: Record<string, { per_minute: number; burst: number }>;
};

/** The affiliate's or the school's keys, oldest first; never the hash or the key. */
export async function listApiKeys(db: Queryable, owner: KeyOwner, now: Date = new Date()): Promise<KeyListing[]> {
  await requireOwner(db, owner);
  const rows = await new ApiKeyRepository(db).ofOwner(owner);
  return rows.map((r) => ({
    ...(r.affiliateId !== null ? { id: r.id, affiliate_id: r.affiliateId } : { id: r.id, school_id: r.schoolId as string }),
    prefix: r.prefix,
    state: r.revokedAt ? 'revoked' : r.expiresAt && r.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active',
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt?.toISOString() ?? null,
    revoked_at: r.revokedAt?.toISOString() ?? null,
    limits: limitsToStored(r.limits),
  }));
}

function ownerOf(input: { affiliateId?: string; schoolId?: string }): KeyOwner {
  if (input.affiliateId !== undefined && input.schoolId !== undefined)
    throw new CliError("a key is an affiliate's or a school's: give --affiliate or --school, not both");
  if (input.schoolId !== undefined) return { schoolId: input.schoolId };
  if (input.affiliateId !== undefined) return { affiliateId: input.affiliateId };
  throw new CliError("name the key's owner: --affiliate <uuid> or --school <uuid>");
}

/** The owner, lower-cased, when it exists in the catalog. */
async function requireOwner(db: Queryable, owner: KeyOwner): Promise<KeyOwner> {
  const catalog = new CatalogRepository(db);
  if ('affiliateId' in owner) {
    if (!isUuid(owner.affiliateId)) throw new CliError(`--affiliate ${JSON.stringify(owner.affiliateId)}: must be a UUID`);
    if (!(await catalog.affiliate(owner.affiliateId))) {
      throw new CliError(
        `unknown affiliate ${owner.affiliateId}: apply a catalog that defines it first (npm run ops -- catalog apply <file>)`,
      );
    }
    return { affiliateId: owner.affiliateId.toLowerCase() };
  }
  if (!isUuid(owner.schoolId)) throw new CliError(`--school ${JSON.stringify(owner.schoolId)}: must be a UUID`);
  if (!(await catalog.school(owner.schoolId))) {
    throw new CliError(`unknown school ${owner.schoolId}: apply a catalog that defines it first (npm run ops -- catalog apply <file>)`);
  }
  return { schoolId: owner.schoolId.toLowerCase() };
}
