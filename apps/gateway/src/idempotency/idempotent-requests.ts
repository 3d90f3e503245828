import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { IDEMPOTENCY_WINDOW_SECONDS, newLeadId, REFUSAL, requestBodyDigest } from '@lr/domain';
import { IdempotencyKeys, IdempotentEndpoint, KeyClaim } from '@lr/persistence';
import { counter } from '@lr/observability';
import type { Principal } from '../auth/principal';
import { ApiError } from '../http/api-error';
import { Dependencies } from '../http/dependencies';

/** A final answer as a key records it: the HTTP status and (submits) the body. */
export interface RecordedAnswer {
  status: number;
  body: unknown;
}

export interface KeyedRequest<T> {
  principal: Principal;
  endpoint: IdempotentEndpoint;
  /** The `Idempotency-Key` header, or null (no key: the request runs as the contract says). */
  key: string | null;
  body: unknown;
  /** How long a runner holds the key before a retry may take it over: the longest the request may take. */
  leaseMs: number;
  /** Runs the request under `leadId` (a new id, or the one the key gave its first run). */
  run(leadId: string): Promise<T>;
  /** What of the answer the key keeps. */
  record(answer: T): RecordedAnswer;
  /** The answer to a retry of a request that was answered: the recorded answer, or the state it has now. */
  replay(leadId: string, recorded: RecordedAnswer): Promise<T>;
}

/** How often a request waiting for another with its key looks again. */
const WAIT_STEP_MS = 50;
/** Keys older than the window deleted per batch, and how often. */
const PRUNE_BATCH = 5000;
const PRUNE_EVERY_MS = 10 * 60_000;

const keyed = counter('gateway_idempotent_requests_total', 'Requests with an Idempotency-Key, by endpoint and how they were answered', [
  'endpoint',
  'outcome',
]);

/**
 * Idempotency keys at the front door (docs/idempotency.md). The first request
 * with a key runs it under a new id; a retry with the same key and body
 * answers the first one's answer (a search: its current state; a PENDING
 * submit: its current decision), and one that comes while the first still
 * runs waits for it. A runner that ended without an answer (an error, or its
 * gateway died) leaves the key to the next retry, which runs the request again
 * under the same id: the workers decide a search or a submit once per id, so
 * that run answers what was decided, never a second decision. The same key
 * with another body is refused (400 naming the header).
 */
@Injectable()
export class IdempotentRequests implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(IdempotentRequests.name);
  private pruner?: NodeJS.Timeout;

  constructor(
    private readonly keys: IdempotencyKeys,
    private readonly deps: Dependencies,
  ) {}

  onModuleInit(): void {
    this.pruner = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  onModuleDestroy(): void {
    if (this.pruner) clearInterval(this.pruner);
  }

  async run<T>(r: KeyedRequest<T>): Promise<T> {
    if (r.key === null) return r.run(newLeadId());
    const claim: KeyClaim = {
      affiliateId: r.principal.affiliateId,
      endpoint: r.endpoint,
      key: r.key,
      bodyDigest: requestBodyDigest(r.body),
      leadId: newLeadId(),
      owner: randomUUID(),
      leaseMs: r.leaseMs,
      windowSeconds: IDEMPOTENCY_WINDOW_SECONDS,
    };
    // A runner that dies holds the key for its lease at most; waiting longer than that and a step means
    // PostgreSQL did not let the key be taken over, which is an outage's answer.
    const waitUntil = Date.now() + r.leaseMs + 1000;
    let waited = false;
    for (;;) {
      const row = await this.deps.call('postgres', () => this.keys.claim(claim));
      if (row.bodyDigest !== claim.bodyDigest) {
        keyed.inc({ endpoint: r.endpoint, outcome: 'refused_reused' });
        throw ApiError.of(REFUSAL.idempotencyKeyReused);
      }
      if (row.owner === claim.owner) {
        keyed.inc({ endpoint: r.endpoint, outcome: waited ? 'taken_over' : row.leadId === claim.leadId ? 'first' : 'rerun' });
        return this.runAsOwner(r, claim, row.leadId);
      }
      if (row.answer) {
        keyed.inc({ endpoint: r.endpoint, outcome: 'replayed' });
        return r.replay(row.leadId, row.answer);
      }
      if (Date.now() > waitUntil) throw ApiError.unavailable();
      waited = true;
      await sleep(Math.max(5, Math.min(WAIT_STEP_MS, row.leaseUntil.getTime() - Date.now())));
    }
  }

  private async runAsOwner<T>(r: KeyedRequest<T>, claim: KeyClaim, leadId: string): Promise<T> {
    let answer: T;
    try {
      answer = await r.run(leadId);
    } catch (e) {
      await this.quietly('release', () => this.keys.release(claim));
      throw e;
    }
    const recorded = r.record(answer);
    // The answer stands without its record: a retry then finds the key unanswered, takes it over once the
    // lease lapses and runs it again under the same id, which answers what was decided.
    await this.quietly('record the answer of', () => this.keys.answer(claim, recorded.status, recorded.body));
    return answer;
  }

  private async quietly(what: string, fn: () => Promise<void>): Promise<void> {
    try {
      await this.deps.call('postgres', fn);
    } catch (e) {
      this.log.warn({ msg: `could not ${what} an idempotency key`, err: String((e as Error)?.message ?? e) });
    }
  }

  private async prune(): Promise<void> {
    try {
      let deleted: number;
      do deleted = await this.keys.prune(IDEMPOTENCY_WINDOW_SECONDS, PRUNE_BATCH);
      while (deleted === PRUNE_BATCH);
    } catch (e) {
      this.log.warn({ msg: 'could not prune idempotency keys', err: String((e as Error)?.message ?? e) });
    }
  }
}
