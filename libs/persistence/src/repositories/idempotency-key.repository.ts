import type { Queryable } from '../queries/queryable';
import { run, statement } from '../queries/sql';

/** An endpoint that takes an `Idempotency-Key`. */
export type IdempotentEndpoint = 'search' | 'leads';

/** A key's row as a request finds it after claiming it. */
export interface ClaimedKey {
  bodyDigest: string;
  leadId: string;
  /** The request running it now (or last): the claimer's own token when the claim made it the runner. */
  owner: string;
  leaseUntil: Date;
  /** The final answer, once given: its HTTP status and (submits) its body. */
  answer: { status: number; body: unknown } | null;
}

export interface KeyClaim {
  affiliateId: string;
  endpoint: IdempotentEndpoint;
  key: string;
  bodyDigest: string;
  /** The id the request gets if the key is new (or its window passed). */
  leadId: string;
  /** This request's token. */
  owner: string;
  leaseMs: number;
  windowSeconds: number;
}

// One statement for the three cases, so two requests with one key can never both run it: the row's
// lock (ON CONFLICT DO UPDATE) orders them. A new key, or one whose window passed, is this request's
// with its new id; a key whose runner's lease lapsed without an answer (its gateway died, or its
// request failed) is taken over with the same id and body; otherwise the row is answered as it is.
const CLAIM = statement(
  'claimIdempotencyKey',
  `
  INSERT INTO idempotency_keys AS k (affiliate_id, endpoint, idem_key, body_digest, lead_id, owner, lease_until, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, now() + $7 * interval '1 millisecond', now())
  ON CONFLICT (affiliate_id, endpoint, idem_key) DO UPDATE SET
    body_digest   = CASE WHEN k.created_at <= now() - $8 * interval '1 second' THEN EXCLUDED.body_digest ELSE k.body_digest END,
    lead_id       = CASE WHEN k.created_at <= now() - $8 * interval '1 second' THEN EXCLUDED.lead_id ELSE k.lead_id END,
    answer_status = CASE WHEN k.created_at <= now() - $8 * interval '1 second' THEN NULL ELSE k.answer_status END,
    answer        = CASE WHEN k.created_at <= now() - $8 * interval '1 second' THEN NULL ELSE k.answer END,
    owner         = CASE WHEN k.created_at <= now() - $8 * interval '1 second'
                           OR (k.answer_status IS NULL AND k.lease_until <= now() AND k.body_digest = EXCLUDED.body_digest)
                         THEN EXCLUDED.owner ELSE k.owner END,
    lease_until   = CASE WHEN k.created_at <= now() - $8 * interval '1 second'
                           OR (k.answer_status IS NULL AND k.lease_until <= now() AND k.body_digest = EXCLUDED.body_digest)
                         THEN EXCLUDED.lease_until ELSE k.lease_until END,
    created_at    = CASE WHEN k.created_at <= now() - $8 * interval '1 second' THEN EXCLUDED.created_at ELSE k.created_at END
  RETURNING body_digest, lead_id, owner, lease_until, answer_status, answer`,
);

const ANSWER = statement(
  'answerIdempotencyKey',
  `UPDATE idempotency_keys SET answer_status = $5, answer = $6 WHERE affiliate_id = $1 AND endpoint = $2 AND idem_key = $3 AND owner = $4`,
);

const RELEASE = statement(
  'releaseIdempotencyKey',
  `UPDATE idempotency_keys SET lease_until = now() WHERE affiliate_id = $1 AND endpoint = $2 AND idem_key = $3 AND owner = $4 AND answer_status IS NULL`,
);

const PRUNE = statement(
  'pruneIdempotencyKeys',
  `
  DELETE FROM idempotency_keys WHERE ctid IN (
    SELECT ctid FROM idempotency_keys WHERE created_at <= now() - $1 * interval '1 second' ORDER BY created_at LIMIT $2)
  RETURNING 1`,
);

/** `idempotency_keys` (docs/idempotency.md). */
export class IdempotencyKeys {
  constructor(private readonly db: Queryable) {}

  /** Claims the key for this request, or finds who has it and what it answered. */
  async claim(c: KeyClaim): Promise<ClaimedKey> {
    const [row] = await run(this.db, CLAIM, [
      c.affiliateId,
      c.endpoint,
      c.key,
      c.bodyDigest,
      c.leadId,
      c.owner,
      c.leaseMs,
      c.windowSeconds,
    ]);
    return {
      bodyDigest: row.body_digest,
      leadId: row.lead_id,
      owner: row.owner,
      leaseUntil: row.lease_until,
      answer: row.answer_status === null ? null : { status: row.answer_status, body: row.answer },
    };
  }

  /** The runner's final answer; a request that lost the key meanwhile records nothing. */
  async answer(c: Pick<KeyClaim, 'affiliateId' | 'endpoint' | 'key' | 'owner'>, status: number, body: unknown): Promise<void> {
    await run(this.db, ANSWER, [c.affiliateId, c.endpoint, c.key, c.owner, status, body === null ? null : JSON.stringify(body)]);
  }

  /** The runner ended without a final answer (an error): the next request with the key runs it again, with the same id. */
  async release(c: Pick<KeyClaim, 'affiliateId' | 'endpoint' | 'key' | 'owner'>): Promise<void> {
    await run(this.db, RELEASE, [c.affiliateId, c.endpoint, c.key, c.owner]);
  }

  /** Deletes up to `limit` keys older than the window; answers how many. */
  async prune(windowSeconds: number, limit: number): Promise<number> {
    const rows = await run(this.db, PRUNE, [windowSeconds, limit]);
    return rows.length;
  }
}
