import { PartnerTimeoutError } from '../adapters/partner-errors';
import { callDeadlineMs, callDeadlines, withDeadline } from './deadline';

describe('callDeadlineMs', () => {
  const now = Date.parse('2026-01-05T14:00:00.000Z');

  it("is the partner's timeout when the search closes later", () => {
    expect(callDeadlineMs(10_000, '2026-01-05T14:00:45.000Z', now)).toBe(10_000);
  });

  it('is what is left of the search when that is shorter', () => {
    expect(callDeadlineMs(10_000, '2026-01-05T14:00:03.250Z', now)).toBe(3_250);
  });

  it('is zero or less once the search has closed', () => {
    expect(callDeadlineMs(10_000, '2026-01-05T14:00:00.000Z', now)).toBe(0);
    expect(callDeadlineMs(10_000, '2026-01-05T13:59:59.000Z', now)).toBe(-1_000);
  });

  it('refuses a closesAt that is not a time', () => {
    expect(() => callDeadlineMs(10_000, 'soon', now)).toThrow(RangeError);
  });

  it("gives every partner of a search its deadline from one moment, and refuses an unreadable closesAt before any partner's", () => {
    const deadlineMs = callDeadlines('2026-01-05T14:00:03.250Z', now);
    expect([deadlineMs(10_000), deadlineMs(2_000)]).toEqual([3_250, 2_000]);
    expect(() => callDeadlines('soon', now)).toThrow(RangeError);
  });
});

describe('withDeadline', () => {
  it('returns what the call returns in time, and stops its timer', async () => {
    jest.useFakeTimers();
    try {
      await expect(withDeadline(1_000, async () => 'done')).resolves.toBe('done');
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('aborts the signal with a PartnerTimeoutError at the deadline', async () => {
    let seen: AbortSignal | undefined;
    const started = Date.now();
    const error = await withDeadline(
      50,
      (signal) =>
        new Promise((_, reject) => {
          seen = signal;
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerTimeoutError);
    expect((error as PartnerTimeoutError).afterMs).toBe(50);
    expect(seen?.aborted).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('rejects at the deadline even when the call ignores its signal', async () => {
    const started = Date.now();
    await expect(withDeadline(50, () => new Promise(() => undefined))).rejects.toBeInstanceOf(PartnerTimeoutError);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("passes the call's own failure through", async () => {
    await expect(withDeadline(1_000, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});
