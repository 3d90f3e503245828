import { testMode } from './test-mode';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';

describe('test mode', () => {
  const lead = { personal: { email: 'ana@example.org', phone: '5125550123' } };
  it('a live lead is checked against the person and sold; results show each school once', () => {
    const m = testMode(false);
    expect(m).toMatchObject({ isTest: false, ranking: 'live', checksPerson: true, holdsInsteadOfSelling: false });
    expect(m.personKeys(TEST_PERSON_KEY_SECRET, lead).map((k) => k.type)).toEqual(['email', 'phone']);
  });
  it('a test lead skips the person check, shows every ranked offer and is held', () => {
    const m = testMode(true);
    expect(m).toMatchObject({ isTest: true, ranking: 'test', checksPerson: false, holdsInsteadOfSelling: true });
    expect(m.personKeys(TEST_PERSON_KEY_SECRET, lead)).toEqual([]);
  });
  it('stays a test lead on later calls: any test flag along the way makes it one', () => {
    expect(testMode(false, true).isTest).toBe(true);
    expect(testMode(true, false).isTest).toBe(true);
    expect(testMode(false, null, undefined).isTest).toBe(false);
  });
});
