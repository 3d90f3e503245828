import { offersSoldToPerson, soldWithinWindow } from './duplicates';

describe('already sold to this person within the offer’s window', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);

  it('counts a sale inside the window and not one at or past its end', () => {
    expect(soldWithinWindow(daysAgo(29.9), 30, now)).toBe(true);
    expect(soldWithinWindow(daysAgo(30), 30, now)).toBe(false);
    expect(soldWithinWindow(daysAgo(31), 30, now)).toBe(false);
    expect(soldWithinWindow(undefined, 30, now)).toBe(false);
    expect(soldWithinWindow(daysAgo(0), 0, now)).toBe(false);
  });

  it('judges each offer in its own window', () => {
    const last = new Map([
      ['a', daysAgo(10)],
      ['b', daysAgo(10)],
    ]);
    expect(
      offersSoldToPerson(
        last,
        [
          { offerId: 'a', windowDays: 30 },
          { offerId: 'b', windowDays: 7 },
          { offerId: 'c', windowDays: 30 },
        ],
        now,
      ),
    ).toEqual(new Set(['a']));
  });
});
