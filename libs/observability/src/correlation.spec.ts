import type { IncomingMessage } from 'node:http';
import { clientRequestIdOf, correlationLogFields, currentCorrelationId, newCorrelationId, withCorrelationId } from './correlation';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('correlation id', () => {
  it('is always a new UUID of our own', () => {
    const ids = new Set([newCorrelationId(), newCorrelationId(), newCorrelationId()]);
    expect(ids.size).toBe(3);
    for (const id of ids) expect(id).toMatch(UUID);
  });

  it('keeps the caller’s well-formed X-Request-Id, else X-Correlation-Id, apart as its client request id', () => {
    expect(clientRequestIdOf(req({ 'x-request-id': 'req-12345678' }))).toBe('req-12345678');
    expect(clientRequestIdOf(req({ 'x-correlation-id': 'trace:abc.def_01' }))).toBe('trace:abc.def_01');
    expect(clientRequestIdOf(req({ 'x-request-id': 'req-12345678', 'x-correlation-id': 'corr-12345678' }))).toBe('req-12345678');
    expect(clientRequestIdOf(req({ 'x-request-id': 'has spaces in it', 'x-correlation-id': 'corr-12345678' }))).toBe('corr-12345678');
    for (const bad of ['short', 'ada@example.com', 'x'.repeat(129), 'quote"d-id-0001', '']) {
      expect(clientRequestIdOf(req({ 'x-request-id': bad }))).toBeUndefined();
    }
    expect(clientRequestIdOf(req({}))).toBeUndefined();
  });

  it('is current inside withCorrelationId, across awaits and timers, and nests', async () => {
    expect(currentCorrelationId()).toBeUndefined();
    expect(correlationLogFields()).toEqual({});
    const seen = await withCorrelationId('outer-0001', async () => {
      await new Promise((r) => setTimeout(r, 5));
      const inner = withCorrelationId('inner-0001', () => currentCorrelationId());
      const later = await new Promise<string | undefined>((r) => setTimeout(() => r(currentCorrelationId()), 5));
      return { after: currentCorrelationId(), inner, later, fields: correlationLogFields() };
    });
    expect(seen).toEqual({ after: 'outer-0001', inner: 'inner-0001', later: 'outer-0001', fields: { correlation_id: 'outer-0001' } });
    expect(currentCorrelationId()).toBeUndefined();
  });

  it('keeps concurrent handlings apart', async () => {
    const run = (id: string, ms: number) =>
      withCorrelationId(id, async () => {
        await new Promise((r) => setTimeout(r, ms));
        return currentCorrelationId();
      });
    expect(await Promise.all([run('first-0001', 15), run('second-001', 1), run('third-0001', 8)])).toEqual([
      'first-0001',
      'second-001',
      'third-0001',
    ]);
  });
});
