import { DELIVERY_ADAPTERS } from '@lr/domain';
import type { SchoolAdapter } from './school-adapter';
import { builtInSchoolAdapters, DEFAULT_SCHOOL_TIMEOUT_MS, deliverWithDeadline, SchoolAdapters } from './school-adapters';
import { SchoolConfigError, SchoolHttpError, SchoolTimeoutError, UnknownSchoolAdapterError } from './school-errors';
import { sampleDelivery } from '../../../../test/support/school-delivery';

describe('SchoolAdapters', () => {
  it('has an adapter for every name the catalog allows', () => {
    expect(Object.keys(builtInSchoolAdapters()).sort()).toEqual([...DELIVERY_ADAPTERS].sort());
    const adapters = new SchoolAdapters();
    for (const name of DELIVERY_ADAPTERS) expect(adapters.get(name)).toBeDefined();
  });

  it('refuses an unknown name with a SchoolConfigError that says nothing was sent', () => {
    const get = () => new SchoolAdapters().get('soap');
    expect(get).toThrow(UnknownSchoolAdapterError);
    expect(get).toThrow(SchoolConfigError);
    expect(get).toThrow('delivery settings: no school adapter named "soap"');
    try {
      get();
    } catch (e) {
      expect(e).toMatchObject({ code: 'SCHOOL_ADAPTER_UNKNOWN', status: null, notReceived: true });
    }
  });
});

describe('deliverWithDeadline', () => {
  /** An adapter that answers after `ms` (or never), honouring its signal unless told not to. */
  const slow = (ms: number | null, honoursSignal = true): SchoolAdapter & { signals: AbortSignal[] } => {
    const signals: AbortSignal[] = [];
    return {
      signals,
      deliver: (_d, signal) =>
        new Promise((resolve, reject) => {
          signals.push(signal);
          if (ms !== null) setTimeout(() => resolve({ kind: 'accepted', buyerLeadId: 'x' }), ms);
          if (honoursSignal) signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    };
  };
  const delivery = (timeout_ms?: number) =>
    sampleDelivery({ adapter: 'sandbox', url: 'http://127.0.0.1:4100/schools/a/leads', ...(timeout_ms ? { timeout_ms } : {}) });

  afterEach(() => jest.useRealTimers());

  it('answers what the adapter answers within the deadline', async () => {
    const adapters = new SchoolAdapters({ sandbox: slow(5) });
    await expect(deliverWithDeadline(adapters, delivery(1000))).resolves.toEqual({ kind: 'accepted', buyerLeadId: 'x' });
  });

  it.each([
    ['honours', true],
    ['ignores', false],
  ])('rejects with SchoolTimeoutError at the settings timeout_ms, and aborts the signal, when the adapter %s it', async (_, honours) => {
    const adapter = slow(null, honours);
    const started = Date.now();
    const error = await deliverWithDeadline(new SchoolAdapters({ sandbox: adapter }), delivery(100)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchoolTimeoutError);
    expect(error).toMatchObject({ afterMs: 100, detail: 'no answer within 100 ms' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(adapter.signals[0].aborted).toBe(true);
  });

  it('takes 8000 ms when the settings say nothing, and an explicit timeoutMs over them', async () => {
    jest.useFakeTimers();
    const adapters = new SchoolAdapters({ sandbox: slow(null) });
    const byDefault = deliverWithDeadline(adapters, delivery()).catch((e: unknown) => e);
    const explicit = deliverWithDeadline(adapters, delivery(100), 300).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(299);
    await jest.advanceTimersByTimeAsync(1);
    expect(await explicit).toMatchObject({ afterMs: 300 });
    await jest.advanceTimersByTimeAsync(DEFAULT_SCHOOL_TIMEOUT_MS - 301);
    let settled = false;
    void byDefault.then(() => (settled = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await byDefault).toMatchObject({ afterMs: DEFAULT_SCHOOL_TIMEOUT_MS });
  });

  it("passes the adapter's failures through, and an unknown adapter as its SchoolConfigError", async () => {
    const failing: SchoolAdapter = { deliver: () => Promise.reject(new SchoolHttpError(500, '')) };
    await expect(deliverWithDeadline(new SchoolAdapters({ sandbox: failing }), delivery(1000))).rejects.toEqual(
      new SchoolHttpError(500, ''),
    );
    await expect(deliverWithDeadline(new SchoolAdapters({}), delivery(1000))).rejects.toBeInstanceOf(UnknownSchoolAdapterError);
  });
});
