import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@lr/config';
import type { AmqpConnection } from '@lr/messaging';
import { Dependencies, DependencyFailure } from '../../../apps/gateway/src/http/dependencies';
import { PENDING_LEAD_TTL_SECONDS, PendingLead, PendingLeads } from '../../../apps/gateway/src/submit-lead/pending-leads';
import { TEST_REDIS_URL, uniqueSuffix } from '../../support/test-env';

/**
 * The gateway's memory of PENDING answers, on the real Redis: found only by
 * the affiliate it was given to, kept for PENDING_LEAD_TTL_SECONDS, and best
 * effort when Redis fails after the submit was published (the PENDING answer
 * must still go out).
 */
describe('PendingLeads', () => {
  const clients: Redis[] = [];
  const pendingLeadsOn = (redis: Redis) => {
    clients.push(redis);
    // Probes that always pass: each test's Redis answers (or fails) only the calls themselves.
    const up = { query: async () => undefined, ping: async () => 'PONG' };
    const deps = new Dependencies(
      up as unknown as DataSource,
      up as unknown as Redis,
      up as unknown as AmqpConnection,
      { dependencyTimeoutMs: 500 } as AppConfig,
    );
    return new PendingLeads(redis, deps);
  };
  afterAll(() => clients.forEach((c) => c.disconnect()));

  const lead = (): PendingLead => ({
    leadId: randomUUID(),
    affiliateId: randomUUID(),
    kind: 'direct_post',
    offerId: randomUUID(),
    resultId: null,
    searchId: null,
    isTest: false,
  });

  it('remembers a PENDING lead for its affiliate only, for the TTL', async () => {
    const redis = new Redis(TEST_REDIS_URL, { keyPrefix: `test:${uniqueSuffix()}:` });
    const pending = pendingLeadsOn(redis);
    const l = lead();
    await pending.remember(l);
    expect(await pending.find(l.leadId, l.affiliateId)).toEqual(l);
    expect(await pending.find(l.leadId, randomUUID())).toBeUndefined();
    expect(await pending.find(randomUUID(), l.affiliateId)).toBeUndefined();
    const ttl = await redis.ttl(`pending-lead:${l.leadId}`);
    expect(ttl).toBeGreaterThan(PENDING_LEAD_TTL_SECONDS - 60);
    expect(ttl).toBeLessThanOrEqual(PENDING_LEAD_TTL_SECONDS);
  });

  it('a Redis failure while remembering does not fail the PENDING answer; reading then is a 503 failure', async () => {
    // Nothing listens on port 1: every command is refused.
    const down = new Redis({
      host: '127.0.0.1',
      port: 1,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    const pending = pendingLeadsOn(down);
    await expect(pending.remember(lead())).resolves.toBeUndefined();
    const read = pending.find(randomUUID(), randomUUID());
    await expect(read).rejects.toBeInstanceOf(DependencyFailure);
    await expect(read).rejects.toMatchObject({ httpStatus: 503, code: 'UNAVAILABLE' });
  });
});
