import { leadDedupeKeys } from '../normalize/dedupe-keys';
import { keyedPersonKey } from '../normalize/person-key';
import { isOverdue, leadOptOutKeys, optOutKeysFromHashes, optOutKeysOf, revocationDueAt } from './opt-outs';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';

describe('opt-out keys', () => {
  it('are the duplicate keys of email and phone: a phone written another way is the same person', () => {
    const a = optOutKeysOf(TEST_PERSON_KEY_SECRET, { phone: '(512) 555-0142', email: 'Ana.Maria+promo@GMail.com' });
    const b = optOutKeysOf(TEST_PERSON_KEY_SECRET, { phone: '+1 512.555.0142', email: 'anamaria@googlemail.com' });
    expect(a).toEqual(b);
    expect(a.map((k) => k.type)).toEqual(['email', 'phone']);
    const dupes = leadDedupeKeys(TEST_PERSON_KEY_SECRET, { personal: { phone: '5125550142', email: 'anamaria@gmail.com' } });
    expect(a).toEqual(dupes.filter((k) => k.type !== 'name_zip_dob'));
  });

  it('leave out what cannot be normalized, and never use name, ZIP or date of birth', () => {
    expect(optOutKeysOf(TEST_PERSON_KEY_SECRET, { email: 'no-at-sign', phone: '555012' })).toEqual([]);
    expect(
      leadOptOutKeys(TEST_PERSON_KEY_SECRET, {
        personal: { last_name: 'Lovelace', date_of_birth: '1990-01-01' },
        address: { zip_code: '90210' },
      }),
    ).toEqual([]);
  });

  it('key hashes as sent, lower-cased; a hashed key wins over the same raw key', () => {
    const keyed = (sha256: string) => keyedPersonKey(TEST_PERSON_KEY_SECRET, sha256);
    expect(optOutKeysFromHashes(TEST_PERSON_KEY_SECRET, { phone: 'AB'.repeat(32) })).toEqual([
      { type: 'phone', hash: keyed('ab'.repeat(32)) },
    ]);
    const raw = optOutKeysOf(TEST_PERSON_KEY_SECRET, { email: 'ana@example.org', phone: '5125550142' });
    expect(optOutKeysOf(TEST_PERSON_KEY_SECRET, { email: 'ana@example.org', phone: '5125550142' }, { phone: 'CD'.repeat(32) })).toEqual([
      raw[0],
      { type: 'phone', hash: keyed('cd'.repeat(32)) },
    ]);
  });
});

describe('revocation deadline', () => {
  it('is ten business days later, weekends skipped', () => {
    // Thursday 2026-11-26 12:00 UTC -> Thursday 2026-12-10 12:00 UTC.
    expect(revocationDueAt(new Date('2026-11-26T12:00:00Z')).toISOString()).toBe('2026-12-10T12:00:00.000Z');
    // Saturday -> ten weekdays from Monday on: Friday two weeks later.
    expect(revocationDueAt(new Date('2026-11-28T09:00:00Z')).toISOString()).toBe('2026-12-11T09:00:00.000Z');
    expect(revocationDueAt(new Date('2026-11-27T00:00:00Z'), 1).toISOString()).toBe('2026-11-30T00:00:00.000Z');
  });

  it('a notice is overdue only when unacknowledged past its due time', () => {
    const dueAt = new Date('2026-12-10T12:00:00Z');
    const after = new Date('2026-12-10T12:00:01Z');
    expect(isOverdue({ dueAt, acknowledgedAt: null }, after)).toBe(true);
    expect(isOverdue({ dueAt, acknowledgedAt: new Date('2026-12-11T00:00:00Z') }, after)).toBe(false);
    expect(isOverdue({ dueAt, acknowledgedAt: null }, new Date('2026-12-10T11:59:59Z'))).toBe(false);
  });
});
