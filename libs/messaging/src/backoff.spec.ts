import { delayLevels, retryDelayMs } from './backoff';
import { decideOnFailure, errorMessage } from './failure-policy';
import { PermanentError } from './errors';

describe('back-off selection', () => {
  it('uses the n-th delay before retry n, the last one repeating', () => {
    const delays = [1000, 5000, 15000];
    expect([1, 2, 3, 4, 9].map((a) => retryDelayMs(a, delays))).toEqual([1000, 5000, 15000, 15000, 15000]);
    expect(() => retryDelayMs(0, delays)).toThrow();
    expect(() => retryDelayMs(1, [])).toThrow();
  });

  it('has one wait queue per distinct delay', () => {
    expect(delayLevels([5000, 1000, 5000])).toEqual([1000, 5000]);
    expect(() => delayLevels([-1])).toThrow();
  });
});

describe('what happens after a handler failed', () => {
  const delays = [100, 200, 300];

  it('retries with back-off until the last try, then dead-letters', () => {
    expect(decideOnFailure(new Error('boom'), 1, 3, delays)).toEqual({ action: 'retry', nextAttempt: 2, delayMs: 100, error: 'boom' });
    expect(decideOnFailure(new Error('boom'), 2, 3, delays)).toEqual({ action: 'retry', nextAttempt: 3, delayMs: 200, error: 'boom' });
    expect(decideOnFailure(new Error('boom'), 3, 3, delays)).toEqual({ action: 'dead-letter', reason: 'boom' });
    expect(decideOnFailure(new Error('boom'), 1, 1, delays).action).toBe('dead-letter');
  });

  it('dead-letters a PermanentError at once, also when it crossed Nest as a plain object', () => {
    expect(decideOnFailure(new PermanentError('school unknown'), 1, 5, delays)).toEqual({
      action: 'dead-letter',
      reason: 'PermanentError: school unknown',
    });
    expect(decideOnFailure({ name: 'PermanentError', message: 'x' }, 1, 5, delays).action).toBe('dead-letter');
  });

  it('turns whatever was thrown into a readable reason', () => {
    expect(errorMessage(new TypeError('x is undefined'))).toBe('TypeError: x is undefined');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage({ status: 'error', message: 'Internal server error' })).toBe('Internal server error');
    expect(errorMessage({ code: 7 })).toBe('{"code":7}');
  });
});
