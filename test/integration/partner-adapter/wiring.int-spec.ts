import { HEADERS, queuesOf } from '@lr/messaging';
import { MESSAGE_TYPES } from '@lr/contracts';
import { drainQueue, queueDepth, waitFor } from '../messaging/support';
import { DeliveredAnswer, OFFERS, received, sandboxPartner, searchRequestAll, usePartnerAdapterWorker } from './harness';

describe('partner-adapter worker on RabbitMQ, as main.ts starts it', () => {
  const w = usePartnerAdapterWorker();

  it("answers a search's request as its partners end: the ones that end together in one message, a slow partner in its own", async () => {
    // No offer left to ask about: answered at once, without a call, both in the same turn.
    const [idle1, idle2] = [sandboxPartner(w.sandbox, 'match=all'), sandboxPartner(w.sandbox, 'match=all')];
    const fast = sandboxPartner(w.sandbox, 'delay_ms=50&match=all');
    const [quiet1, quiet2] = [
      sandboxPartner(w.sandbox, 'outcome=timeout', { timeoutMs: 600 }),
      sandboxPartner(w.sandbox, 'outcome=timeout', { timeoutMs: 600 }),
    ];
    const slow = sandboxPartner(w.sandbox, 'delay_ms=1200&match=some', { timeoutMs: 3_000 });
    const msg = searchRequestAll([
      { partner: idle1, offers: [], lead: {}, tracking: {} },
      fast,
      quiet1,
      { partner: idle2, offers: [], lead: {}, tracking: {} },
      quiet2,
      slow,
      fast,
    ]);
    const sent = Date.now();
    await w.orchestrator.publish(MESSAGE_TYPES.PartnerSearchRequested, msg, {
      messageId: `partner-search:${msg.searchId}`,
      correlationId: 'corr-v2',
    });

    const carries = (m: DeliveredAnswer) => (m.payload.answers ?? []).map((a) => a.partnerId);
    const messages = await w.answers.waitFor(msg.searchId, (arrived) => arrived.some((m) => carries(m).includes(slow.id)));
    for (const m of messages) {
      expect(m.type).toBe(MESSAGE_TYPES.PartnerSearchAnswered);
      expect(m.correlationId).toBe('corr-v2');
      expect(m.payload).toEqual({ searchId: msg.searchId, campaignId: msg.campaignId, answers: expect.any(Array) });
      expect(m.messageId).toBe(`partner-answer:${msg.searchId}:${carries(m).join('+')}`);
    }
    // Every partner answered once, the one listed twice too.
    expect(messages.flatMap(carries).sort()).toEqual([idle1.id, idle2.id, fast.id, quiet1.id, quiet2.id, slow.id].sort());

    const [together, first] = messages.map((m) => m.payload.answers ?? []);
    expect(together).toEqual(
      [idle1, idle2].map((p) => ({ partnerId: p.id, outcome: 'answered', latencyMs: expect.any(Number), results: [] })),
    );

    expect(first).toEqual([{ partnerId: fast.id, outcome: 'answered', latencyMs: expect.any(Number), results: expect.any(Array) }]);
    expect(first[0].results.map((r) => r.offerId)).toEqual(OFFERS.slice(0, 3).map((o) => o.offerId));
    expect(messages[1].at - sent).toBeLessThan(550); // not held for the partners still running

    // The two partners that time out at 600 ms: published then, whether their calls ended in one turn or two.
    const timedOut = messages.slice(2, -1);
    expect(timedOut.flatMap(carries).sort()).toEqual([quiet1.id, quiet2.id].sort());
    for (const m of timedOut) {
      expect(m.at - sent).toBeGreaterThanOrEqual(590);
      for (const a of m.payload.answers ?? [])
        expect(a).toMatchObject({ outcome: 'timeout', results: [], detail: 'the partner did not answer within 600 ms' });
    }

    const last = messages[messages.length - 1];
    expect(last.payload.answers).toEqual([
      { partnerId: slow.id, outcome: 'answered', latencyMs: expect.any(Number), results: expect.any(Array) },
    ]);
    expect(last.payload.answers?.[0].results.map((r) => r.offerId)).toEqual([OFFERS[0].offerId, OFFERS[2].offerId]);
    expect(last.payload.answers?.[0].latencyMs).toBeGreaterThanOrEqual(1_190);
    expect(last.at - sent).toBeGreaterThanOrEqual(1_190);

    // Asked once each, with the lead as the search holds it; the partners with no offers not at all.
    for (const p of [fast, quiet1, quiet2, slow]) expect((await received(w.sandbox, p)).search_total_received).toBe(1);
    for (const p of [idle1, idle2]) expect((await received(w.sandbox, p)).search_total_received).toBe(0);
    expect((await received(w.sandbox, fast)).searches[0].body).toMatchObject({
      search_id: msg.searchId,
      lead: msg.partners[1].lead,
      tracking: msg.partners[1].tracking,
      is_test: true,
    });
    expect(await queueDepth(queuesOf(w.topology, 'partner-adapter').queue)).toBe(0);
  });

  it('answers every partner of a request taken after its search closed expired, in one message, calling none', async () => {
    const partners = [
      sandboxPartner(w.sandbox, 'match=all'),
      sandboxPartner(w.sandbox, 'match=all'),
      sandboxPartner(w.sandbox, 'match=all'),
    ];
    const msg = searchRequestAll(partners, { closesInMs: -1 });
    await w.orchestrator.publish(MESSAGE_TYPES.PartnerSearchRequested, msg, {
      messageId: `partner-search:${msg.searchId}`,
      correlationId: 'corr-late',
    });

    const [answer, ...more] = await w.answers.waitFor(msg.searchId, 1);
    expect(more).toEqual([]);
    expect(answer).toMatchObject({
      type: MESSAGE_TYPES.PartnerSearchAnswered,
      messageId: `partner-answer:${msg.searchId}:${partners.map((p) => p.id).join('+')}`,
      correlationId: 'corr-late',
    });
    expect(answer.payload.answers).toEqual(
      partners.map((p) => ({
        partnerId: p.id,
        outcome: 'expired',
        latencyMs: expect.any(Number),
        results: [],
        detail: `the search closed at ${msg.closesAt}, before the partner was asked`,
      })),
    );
    for (const p of partners) expect((await received(w.sandbox, p)).search_total_received).toBe(0);
  });

  it('dead-letters at once a request whose closesAt is not a time, without calling any partner', async () => {
    const partners = [sandboxPartner(w.sandbox, 'match=all'), sandboxPartner(w.sandbox, 'match=all')];
    const msg = { ...searchRequestAll(partners), closesAt: 'soon' };
    const dlq = queuesOf(w.topology, 'partner-adapter').dlq;
    const messageId = await w.orchestrator.publish(MESSAGE_TYPES.PartnerSearchRequested, msg, {
      messageId: `partner-search:${msg.searchId}`,
    });

    await waitFor(async () => (await queueDepth(dlq)) > 0, 10_000, 'the dead-lettered request');
    const [dead, ...rest] = await drainQueue(dlq);
    expect(rest).toHaveLength(0);
    expect(dead.properties.messageId).toBe(messageId);
    expect(dead.properties.headers?.[HEADERS.attempts]).toBe(1);
    expect(String(dead.properties.headers?.[HEADERS.deathReason])).toContain('closesAt is not a time');
    for (const p of partners) expect((await received(w.sandbox, p)).search_total_received).toBe(0);
    expect(w.answers.of(msg.searchId)).toEqual([]);
  });
});
