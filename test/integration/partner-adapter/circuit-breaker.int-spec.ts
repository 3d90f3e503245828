import { received, sandboxPartner, searchRequest, sleep, usePartnerSearch } from './harness';

describe('partner-adapter circuit breaker against the sandbox partner', () => {
  const RESET_MS = 400;
  const s = usePartnerSearch({ resetTimeout: RESET_MS });

  it('stops calling a failing partner and answers circuit_open at once', async () => {
    const partner = sandboxPartner(s.sandbox, 'outcome=error');
    for (let i = 0; i < 5; i++) expect((await s.ctx.answer(searchRequest(partner))).outcome).toBe('error');
    expect((await received(s.sandbox, partner)).search_total_received).toBe(5);
    for (let i = 0; i < 3; i++) {
      const answer = await s.ctx.answer(searchRequest(partner));
      expect(answer).toMatchObject({ outcome: 'circuit_open', results: [] });
      expect(answer.latencyMs).toBeLessThan(50);
    }
    expect((await received(s.sandbox, partner)).search_total_received).toBe(5);
    expect(s.ctx.breakers.state(partner.id)).toBe('open');
  });

  it('counts timeouts as failures too', async () => {
    const partner = sandboxPartner(s.sandbox, 'outcome=timeout', { timeoutMs: 100 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => s.ctx.answer(searchRequest(partner))));
    expect(answers.map((a) => a.outcome)).toEqual(Array(5).fill('timeout'));
    expect((await s.ctx.answer(searchRequest(partner))).outcome).toBe('circuit_open');
  });

  it('lets a trial call through after resetTimeout and closes again when the partner recovered', async () => {
    const failing = sandboxPartner(s.sandbox, 'outcome=error');
    for (let i = 0; i < 5; i++) await s.ctx.answer(searchRequest(failing));
    expect((await s.ctx.answer(searchRequest(failing))).outcome).toBe('circuit_open');
    await sleep(RESET_MS + 100);
    expect(s.ctx.breakers.state(failing.id)).toBe('half_open');
    // The same partner (same id), now answering: the catalog's base_url was fixed.
    const recovered = { ...failing, baseUrl: failing.baseUrl.replace('outcome=error', 'outcome=accept') };
    const trial = await s.ctx.answer(searchRequest(recovered));
    expect(trial.outcome).toBe('answered');
    expect(s.ctx.breakers.state(failing.id)).toBe('closed');
    expect((await s.ctx.answer(searchRequest(recovered))).outcome).toBe('answered');
    expect((await received(s.sandbox, failing)).search_total_received).toBe(7);
  });

  it('keeps other partners working while one partner is open', async () => {
    const failing = sandboxPartner(s.sandbox, 'outcome=error');
    const healthy = sandboxPartner(s.sandbox, 'match=all');
    for (let i = 0; i < 6; i++) await s.ctx.answer(searchRequest(failing));
    expect(s.ctx.breakers.state(failing.id)).toBe('open');
    await expect(s.ctx.answer(searchRequest(healthy))).resolves.toMatchObject({ outcome: 'answered' });
  });
});
