import { addDays, idDay, LEGACY_DAY, perDay } from './partition-days';

describe('day partitions', () => {
  it('a UUIDv7 names the UTC day of its time; any other id the legacy partition', () => {
    expect(idDay('019ac0f8-a000-7000-8000-000000000000')).toBe(new Date(0x019ac0f8a000).toISOString().slice(0, 10));
    expect(idDay('3f0a2b9e-8d1c-4e5f-a6b7-c8d9e0f1a2b3')).toBe(LEGACY_DAY);
    expect(idDay('not an id')).toBe(LEGACY_DAY);
  });

  it('a per-day statement names the day and the kept partition, made once per day and only for days', () => {
    let made = 0;
    const q = perDay((on) => {
      made++;
      return `SELECT 1 FROM searches s WHERE ${on.days('s')} AND s.part_day <= ${on.day}`;
    });
    expect(q('2026-11-26')).toBe(
      `SELECT 1 FROM searches s WHERE s.part_day IN (DATE '2026-11-26', DATE '1970-01-01') AND s.part_day <= DATE '2026-11-26'`,
    );
    expect(q('2026-11-26')).toBe(q('2026-11-26'));
    expect(made).toBe(1);
    for (let i = 1; i <= 6; i++) q(addDays('2026-11-26', i));
    q('2026-11-26'); // made again: only the last few days are kept
    expect(made).toBe(8);
    expect(() => q("2026-11-26') OR (true")).toThrow('not a day');
  });
});
