import { MESSAGE_TYPES } from '@lr/contracts';
import { OFFERS, received, sandboxPartner, searchRequest, searchRequestAll, usePartnerSearch } from './harness';

describe('partner-adapter search against the sandbox partner', () => {
  const s = usePartnerSearch();

  it('answers after delay_ms, within the deadline, with every result mapped to our offers', async () => {
    const partner = sandboxPartner(s.sandbox, 'delay_ms=300&match=all&outcome=accept', { timeoutMs: 2_000 });
    const msg = searchRequest(partner);
    const answer = await s.ctx.answer(msg);
    expect(answer.outcome).toBe('answered');
    expect(answer.latencyMs).toBeGreaterThanOrEqual(290);
    expect(answer.latencyMs).toBeLessThan(2_000);
    expect(answer.results.map((r) => [r.offerId, r.externalId])).toEqual(msg.offers.map((o) => [o.offerId, o.externalId]));
    for (const r of answer.results) {
      expect(r.partnerResultId).toMatch(/^pr_[0-9a-f]{24}$/);
      expect(r.programs.length).toBeGreaterThanOrEqual(1);
      expect(r.school).toEqual({ name: expect.any(String), logoUrl: expect.stringMatching(/^https:\/\//) });
      expect(r.tcpaText).toContain(r.school?.name);
      expect([600, 900, 1800, 3600]).toContain(r.expiresInSeconds);
      for (const f of r.formFields) {
        expect(['select', 'text']).toContain(f.type);
        if (f.type === 'select') expect(f.options?.length).toBeGreaterThan(0);
        if (f.type === 'text') expect(f).not.toHaveProperty('options');
        if (f.required_when) expect(r.programs.map((p) => p.value)).toEqual(expect.arrayContaining(f.required_when.program_ids));
      }
    }
    // What the partner was sent: the protocol's body, with its view of the lead as the orchestrator made it.
    const got = await received(s.sandbox, partner);
    expect(got.search_total_received).toBe(1);
    expect(got.searches[0].body).toEqual({
      search_id: msg.searchId,
      offers: msg.offers.map((o) => ({ external_id: o.externalId })),
      lead: msg.lead,
      tracking: msg.tracking,
      is_test: true,
    });
  });

  it("publishes the answers of a search's request under their deterministic messageIds, to the orchestrator's queue", async () => {
    const [fast, slow] = [sandboxPartner(s.sandbox, 'match=all'), sandboxPartner(s.sandbox, 'match=some&delay_ms=400')];
    const msg = searchRequestAll([fast, slow]);
    await s.ctx.service.answerAllAndPublish(msg, 'corr-43');
    const answers = await s.answers.waitFor(msg.searchId, 2);
    expect(answers.map((m) => [m.type, m.messageId, m.correlationId])).toEqual([
      [MESSAGE_TYPES.PartnerSearchAnswered, `partner-answer:${msg.searchId}:${fast.id}`, 'corr-43'],
      [MESSAGE_TYPES.PartnerSearchAnswered, `partner-answer:${msg.searchId}:${slow.id}`, 'corr-43'],
    ]);
    expect(answers[0].payload).toEqual({
      searchId: msg.searchId,
      campaignId: msg.campaignId,
      answers: [{ partnerId: fast.id, outcome: 'answered', latencyMs: expect.any(Number), results: expect.any(Array) }],
    });
    expect(answers[1].payload).toMatchObject({
      answers: [{ partnerId: slow.id, outcome: 'answered', results: [OFFERS[0], OFFERS[2]].map((o) => expect.objectContaining(o)) }],
    });
  });

  it('answers no results for match=none and every other offer for match=some', async () => {
    const none = await s.ctx.answer(searchRequest(sandboxPartner(s.sandbox, 'match=none'), { offers: OFFERS }));
    expect(none).toMatchObject({ outcome: 'answered', results: [] });
    const some = await s.ctx.answer(searchRequest(sandboxPartner(s.sandbox, 'match=some'), { offers: OFFERS }));
    expect(some.outcome).toBe('answered');
    expect(some.results.map((r) => r.offerId)).toEqual([OFFERS[0].offerId, OFFERS[2].offerId, OFFERS[4].offerId]);
  });

  it("answers timeout at the partner's timeoutMs when the partner never answers", async () => {
    const partner = sandboxPartner(s.sandbox, 'outcome=timeout', { timeoutMs: 800 });
    const started = Date.now();
    const answer = await s.ctx.answer(searchRequest(partner));
    const elapsed = Date.now() - started;
    expect(answer).toMatchObject({ outcome: 'timeout', results: [], detail: 'the partner did not answer within 800 ms' });
    expect(elapsed).toBeGreaterThanOrEqual(790);
    expect(elapsed).toBeLessThanOrEqual(800 + 300);
    expect(answer.latencyMs).toBeGreaterThanOrEqual(790);
  });

  it('answers timeout when delay_ms is longer than the timeout', async () => {
    const partner = sandboxPartner(s.sandbox, 'delay_ms=3000', { timeoutMs: 500 });
    const started = Date.now();
    await expect(s.ctx.answer(searchRequest(partner))).resolves.toMatchObject({ outcome: 'timeout' });
    expect(Date.now() - started).toBeLessThanOrEqual(500 + 300);
  });

  it('cuts the call short when the search closes before the partner timeout', async () => {
    const partner = sandboxPartner(s.sandbox, 'outcome=timeout', { timeoutMs: 10_000 });
    const started = Date.now();
    await expect(s.ctx.answer(searchRequest(partner, { closesInMs: 600 }))).resolves.toMatchObject({ outcome: 'timeout' });
    expect(Date.now() - started).toBeLessThanOrEqual(600 + 300);
  });

  it('answers expired without calling the partner when the search already closed', async () => {
    const partner = sandboxPartner(s.sandbox, 'match=all');
    const answer = await s.ctx.answer(searchRequest(partner, { closesInMs: -1 }));
    expect(answer).toMatchObject({ outcome: 'expired', results: [] });
    expect((await received(s.sandbox, partner)).search_total_received).toBe(0);
  });

  it('answers error with a detail when the partner fails (HTTP 500)', async () => {
    const answer = await s.ctx.answer(searchRequest(sandboxPartner(s.sandbox, 'outcome=error')));
    expect(answer).toMatchObject({ outcome: 'error', results: [], detail: 'PARTNER_HTTP_ERROR: HTTP 500: Internal Server Error' });
  });

  it("answers error with the partner's reason when it refuses the request (a typo in the base_url)", async () => {
    const answer = await s.ctx.answer(searchRequest(sandboxPartner(s.sandbox, 'delay=5')));
    expect(answer).toMatchObject({ outcome: 'error', detail: 'PARTNER_HTTP_ERROR: HTTP 400: INVALID_PARAM delay' });
  });

  it('answers error when nothing listens at the base_url', async () => {
    const partner = sandboxPartner(s.sandbox, 'match=all', { baseUrl: 'http://127.0.0.1:1/partners/nobody' });
    const answer = await s.ctx.answer(searchRequest(partner));
    expect(answer).toMatchObject({ outcome: 'error', detail: expect.stringContaining('no HTTP answer') });
  });

  it('answers error for an adapter the build does not have, without calling anyone', async () => {
    const partner = sandboxPartner(s.sandbox, 'match=all', { adapter: 'soap-2004' });
    const answer = await s.ctx.answer(searchRequest(partner));
    expect(answer).toMatchObject({ outcome: 'error', detail: expect.stringContaining('no partner adapter named "soap-2004"') });
    expect((await received(s.sandbox, partner)).search_total_received).toBe(0);
  });

  it('calls partners concurrently: a slow partner does not delay a fast one', async () => {
    const slow = sandboxPartner(s.sandbox, 'outcome=timeout', { timeoutMs: 1_500 });
    const fast = sandboxPartner(s.sandbox, 'delay_ms=100');
    const started = Date.now();
    const done: Record<string, number> = {};
    const track = (name: string) => (a: { outcome: string }) => ((done[name] = Date.now() - started), a);
    const [slowAnswer, fastAnswer] = await Promise.all([
      s.ctx.answer(searchRequest(slow)).then(track('slow')),
      s.ctx.answer(searchRequest(fast)).then(track('fast')),
    ]);
    expect(slowAnswer.outcome).toBe('timeout');
    expect(fastAnswer.outcome).toBe('answered');
    expect(done.fast).toBeLessThan(600);
    expect(done.slow).toBeGreaterThanOrEqual(1_490);
  });

  it('asks the partners again on a redelivered search request, and answers under the same messageId', async () => {
    const partner = sandboxPartner(s.sandbox, 'match=all');
    const msg = searchRequestAll([partner]);
    await s.ctx.service.answerAllAndPublish(msg, 'c');
    await s.ctx.service.answerAllAndPublish(msg, 'c');
    expect((await received(s.sandbox, partner)).search_total_received).toBe(2);
    const [first, again] = await s.answers.waitFor(msg.searchId, 2);
    expect(again.messageId).toBe(`partner-answer:${msg.searchId}:${partner.id}`);
    expect(again.messageId).toBe(first.messageId);
    expect(again.payload.answers).toEqual([expect.objectContaining({ results: first.payload.answers?.[0].results })]);
  });
});
