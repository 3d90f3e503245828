import { capIsFull, capPeriodStart, capsAt, capScope, fullCap, slotKey, type CapRule } from './caps';

/** The period starts a cap counts in: the one definition of which cap_usage row a sale takes (and the search-time check reads). */
describe('cap periods in the cap timezone', () => {
  it.each([
    // Chicago is UTC-6 in November: the day turns at 06:00 UTC.
    ['day', 'America/Chicago', '2026-11-21T05:59:59Z', '2026-11-20T06:00:00.000Z'],
    ['day', 'America/Chicago', '2026-11-21T06:00:00Z', '2026-11-21T06:00:00.000Z'],
    // New York switches to summer time on 2026-03-08: that day starts at 05:00 UTC, the next at 04:00 UTC.
    ['day', 'America/New_York', '2026-03-08T12:00:00Z', '2026-03-08T05:00:00.000Z'],
    ['day', 'America/New_York', '2026-03-09T03:59:00Z', '2026-03-08T05:00:00.000Z'],
    ['day', 'America/New_York', '2026-03-09T04:00:00Z', '2026-03-09T04:00:00.000Z'],
    ['hour', 'Asia/Kolkata', '2026-11-21T10:29:00Z', '2026-11-21T09:30:00.000Z'],
    // ISO weeks start on Monday (2026-11-16 is a Monday).
    ['week', 'America/New_York', '2026-11-22T23:00:00Z', '2026-11-16T05:00:00.000Z'],
    ['month', 'America/Los_Angeles', '2026-12-01T07:59:00Z', '2026-11-01T07:00:00.000Z'],
    ['total', 'America/New_York', '2026-11-21T10:00:00Z', '1970-01-01T00:00:00.000Z'],
  ] as const)('%s in %s at %s starts at %s', (period, tz, at, expected) => {
    expect(capPeriodStart(period, tz, new Date(at)).toISOString()).toBe(expected);
  });

  it('keeps the two hours of a fall-back night apart (each starts at its own instant)', () => {
    // 2026-11-01 in New York: 01:30 EDT (05:30Z) and 01:30 EST (06:30Z) are different hours.
    expect(capPeriodStart('hour', 'America/New_York', new Date('2026-11-01T05:30:00Z')).toISOString()).toBe('2026-11-01T05:00:00.000Z');
    expect(capPeriodStart('hour', 'America/New_York', new Date('2026-11-01T06:30:00Z')).toISOString()).toBe('2026-11-01T06:00:00.000Z');
  });

  it('answers the same start for every instant of a period, and the next one from its first instant', () => {
    const start = capPeriodStart('day', 'America/Chicago', new Date('2026-11-21T06:00:00Z'));
    expect(capPeriodStart('day', 'America/Chicago', new Date('2026-11-22T05:59:59.999Z'))).toEqual(start);
    expect(capPeriodStart('day', 'America/Chicago', new Date('2026-11-22T06:00:00Z')).toISOString()).toBe('2026-11-22T06:00:00.000Z');
    // An earlier instant after a later one: its own period, not the one last seen.
    expect(capPeriodStart('day', 'America/Chicago', new Date('2026-11-20T12:00:00Z')).toISOString()).toBe('2026-11-20T06:00:00.000Z');
    // Across a change to summer time the period still ends where the next one starts.
    expect(capPeriodStart('day', 'America/New_York', new Date('2026-03-08T05:00:00Z')).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(capPeriodStart('day', 'America/New_York', new Date('2026-03-09T03:59:59Z')).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(capPeriodStart('day', 'America/New_York', new Date('2026-03-09T04:00:00Z')).toISOString()).toBe('2026-03-09T04:00:00.000Z');
  });

  it('refuses an unknown timezone instead of counting in the wrong day', () => {
    expect(() => capPeriodStart('day', 'Mars/Olympus_Mons', new Date())).toThrow(RangeError);
  });

  it('names the offer-wide and the campaign scope apart', () => {
    expect(capScope('11111111-1111-1111-1111-111111111111', null)).toBe('offer:11111111-1111-1111-1111-111111111111');
    expect(capScope('11111111-1111-1111-1111-111111111111', '22222222-2222-2222-2222-222222222222')).toBe(
      'campaign:22222222-2222-2222-2222-222222222222:offer:11111111-1111-1111-1111-111111111111',
    );
  });
});

describe('caps of a sale', () => {
  const at = new Date('2026-11-21T15:00:00Z');
  const offerDay: CapRule = { offerId: 'o1', campaignId: null, period: 'day', limit: 2, timezone: 'America/New_York' };
  const campaignTotal: CapRule = { offerId: 'o1', campaignId: 'c1', period: 'total', limit: 0, timezone: 'America/New_York' };
  const offerHour: CapRule = { offerId: 'o1', campaignId: null, period: 'hour', limit: 5, timezone: 'UTC' };

  it('orders the offer’s own caps before the campaign’s, then by period (a fixed order for the reservation)', () => {
    expect(capsAt([campaignTotal, offerHour, offerDay], at).map((c) => `${c.campaignId}:${c.period}`)).toEqual([
      'null:day',
      'null:hour',
      'c1:total',
    ]);
  });

  it('is full when the slot counts the limit, and a limit of 0 takes none', () => {
    const [day, , total] = capsAt([offerDay, offerHour, campaignTotal], at);
    const usage = new Map([[slotKey(day.slot), 2]]);
    expect(capIsFull(day, usage)).toBe(true);
    expect(capIsFull(day, new Map([[slotKey(day.slot), 1]]))).toBe(false);
    expect(capIsFull(total, new Map())).toBe(true);
    expect(fullCap(capsAt([offerHour], at), new Map())).toBeUndefined();
    expect(fullCap(capsAt([offerDay, offerHour], at), usage)?.period).toBe('day');
  });
});
