import {
  checkRetentionSettings,
  expiredPartitions,
  MESSAGE_RETENTION,
  RetentionInput,
  retentionCutoff,
  SEARCH_RETENTION,
  StoredPartition,
} from './retention-policy';

const TABLES = ['searches', 'result_templates', 'search_partner_calls', 'processed_messages'];
const suffix = (day: string) => (day === 'kept' || day === 'legacy' ? day : `p${day.replace(/-/g, '')}`);
/** Every partitioned table's partition of each day, as the store lists them (by table, then name). */
const stored = (...days: string[]): StoredPartition[] =>
  TABLES.flatMap((table) => days.map((day) => ({ table, name: `${table}_${suffix(day)}`, day })));
const defaults = { searchDays: SEARCH_RETENTION.defaultDays, messageDays: MESSAGE_RETENTION.defaultDays };
const input = (over: Partial<RetentionInput>): RetentionInput => ({
  today: '2026-11-26',
  settings: defaults,
  partitions: [],
  legacyNewest: { searches: null, messages: null },
  ...over,
});
const names = (plan: ReturnType<typeof expiredPartitions>) => plan.map((d) => [d.family, d.day, d.partitions.map((p) => p.name)]);

describe('retention policy', () => {
  it('keeps 30 days of searches and of handled messages by default, with minimums of 3 and 2 days', () => {
    expect(SEARCH_RETENTION).toEqual({ defaultDays: 30, minimumDays: 3 });
    expect(MESSAGE_RETENTION).toEqual({ defaultDays: 30, minimumDays: 2 });
  });

  it('expires a day partition D when D < today - N days (UTC days, across months and leap days)', () => {
    expect(retentionCutoff('2026-11-26', 30)).toBe('2026-10-27');
    expect(retentionCutoff('2028-03-01', 1)).toBe('2028-02-29');
    expect(retentionCutoff('2027-01-02', 3)).toBe('2026-12-30');
    const plan = expiredPartitions(input({ partitions: stored('2026-10-26', '2026-10-27', '2026-10-28') }));
    expect(plan.map((d) => d.day)).toEqual(['2026-10-26', '2026-10-26']);
  });

  it('drops a day’s searches, partner calls and templates together, searches first and templates last; messages apart', () => {
    const plan = expiredPartitions(input({ partitions: stored('2026-10-01') }));
    expect(names(plan)).toEqual([
      ['searches', '2026-10-01', ['searches_p20261001', 'search_partner_calls_p20261001', 'result_templates_p20261001']],
      ['messages', '2026-10-01', ['processed_messages_p20261001']],
    ]);
  });

  it('applies each family its own window, oldest day first', () => {
    const partitions = stored('2026-11-20', '2026-11-10', '2026-11-22', '2026-11-21');
    const plan = expiredPartitions(input({ settings: { searchDays: 5, messageDays: 14 }, partitions }));
    // Searches: before 2026-11-21; messages: before 2026-11-12.
    expect(plan.map((d) => [d.family, d.day])).toEqual([
      ['searches', '2026-11-10'],
      ['messages', '2026-11-10'],
      ['searches', '2026-11-20'],
    ]);
  });

  it('never drops the kept partition, today, or the partitions made ahead', () => {
    const partitions = stored('kept', '2026-11-25', '2026-11-26', '2026-11-27', '2026-12-03');
    expect(expiredPartitions(input({ settings: { searchDays: 3, messageDays: 2 }, partitions }))).toEqual([]);
    // However old "today" is made to look.
    expect(expiredPartitions(input({ today: '2099-01-01', partitions: stored('kept') }))).toEqual([]);
  });

  it('empties the legacy partition once its newest row is past the window, and leaves an empty one alone', () => {
    const partitions = stored('legacy');
    const at = (iso: string) => new Date(iso);
    expect(expiredPartitions(input({ partitions }))).toEqual([]);
    const recent = expiredPartitions(
      input({ partitions, legacyNewest: { searches: at('2026-10-27T00:00:00Z'), messages: at('2026-10-26T23:59:59.999Z') } }),
    );
    expect(names(recent)).toEqual([['messages', 'legacy', ['processed_messages_legacy']]]);
    const old = expiredPartitions(
      input({
        partitions: [...partitions, ...stored('2026-10-01')],
        legacyNewest: { searches: at('2026-10-26T12:00:00Z'), messages: null },
      }),
    );
    expect(names(old)).toEqual([
      ['searches', '2026-10-01', ['searches_p20261001', 'search_partner_calls_p20261001', 'result_templates_p20261001']],
      ['messages', '2026-10-01', ['processed_messages_p20261001']],
      ['searches', 'legacy', ['searches_legacy', 'search_partner_calls_legacy', 'result_templates_legacy']],
    ]);
  });

  it('finishes a day an interrupted run left half dropped, and touches no table it does not know', () => {
    const partitions: StoredPartition[] = [
      { table: 'result_templates', name: 'result_templates_p20261001', day: '2026-10-01' },
      { table: 'leads', name: 'leads_p20261001', day: '2026-10-01' },
      { table: 'searches', name: 'searches_p20261002', day: 'not-a-day' },
    ];
    expect(names(expiredPartitions(input({ partitions })))).toEqual([['searches', '2026-10-01', ['result_templates_p20261001']]]);
  });

  it('refuses settings under the minimums, fractions, and a malformed today', () => {
    expect(() => checkRetentionSettings({ searchDays: 3, messageDays: 2 })).not.toThrow();
    expect(() => checkRetentionSettings({ searchDays: 2, messageDays: 30 })).toThrow(
      /searchDays must be a whole number of days from 3, got 2/,
    );
    expect(() => checkRetentionSettings({ searchDays: 30, messageDays: 1 })).toThrow(/messageDays .* from 2, got 1/);
    expect(() => checkRetentionSettings({ searchDays: 7.5, messageDays: 30 })).toThrow(RangeError);
    expect(() => expiredPartitions(input({ settings: { searchDays: 0, messageDays: 30 } }))).toThrow(RangeError);
    expect(() => expiredPartitions(input({ today: '26/11/2026' }))).toThrow(/today must be a UTC day/);
  });
});
