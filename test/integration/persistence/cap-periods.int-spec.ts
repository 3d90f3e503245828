import { DataSource } from 'typeorm';
import { createDataSource } from '@lr/persistence';
import { TEST_DATABASE_URL } from '../../support/test-env';

/** cap_scope() and cap_period_start(): the one definition of which cap_usage row a cap counts in. */
describe('cap periods in the cap timezone', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 1, timeoutMs: 5000 });
    await ds.initialize();
  });
  afterAll(() => ds?.destroy());

  const start = async (period: string, tz: string, at: string): Promise<string> =>
    new Date((await ds.query('SELECT cap_period_start($1, $2, $3::timestamptz) AS s', [period, tz, at]))[0].s).toISOString();

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
  ])('%s in %s at %s starts at %s', async (period, tz, at, expected) => {
    expect(await start(period, tz, at)).toBe(expected);
  });

  it('names the offer-wide and the campaign scope apart', async () => {
    const [r] = await ds.query(
      `SELECT cap_scope('11111111-1111-1111-1111-111111111111', NULL) AS o,
              cap_scope('11111111-1111-1111-1111-111111111111', '22222222-2222-2222-2222-222222222222') AS c`,
    );
    expect(r).toEqual({
      o: 'offer:11111111-1111-1111-1111-111111111111',
      c: 'campaign:22222222-2222-2222-2222-222222222222:offer:11111111-1111-1111-1111-111111111111',
    });
  });
});
