import { dedupeKeysFromHashes, hashOf, keyedPersonKey, leadDedupeKeys } from '@lr/domain';
import { ApiError } from '../http/api-error';
import { parseDupeCheckRequest } from './dupe-check-request';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';

/** The keys the submit path writes for this person (leadDedupeKeys): what every request below must reproduce. */
const person = {
  personal: { email: 'ada.lovelace@gmail.com', phone: '5125550100', last_name: 'Lovelace', date_of_birth: '1995-04-12' },
  address: { zip_code: '75001' },
};
const [EMAIL, PHONE, NAME_ZIP_DOB] = leadDedupeKeys(TEST_PERSON_KEY_SECRET, person);

function refusal(body: unknown): { status: number; code: string; field?: unknown } {
  try {
    parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, body);
  } catch (e) {
    if (e instanceof ApiError) return { status: e.httpStatus, code: e.code, field: e.extra.field };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('parseDupeCheckRequest', () => {
  it('hashes raw values exactly as the submit path does, whatever their formatting', () => {
    const { keys, offerId } = parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, {
      email: ' Ada.Love.lace+promo@GoogleMail.com ',
      phone: '+1 (512) 555-0100',
      last_name: 'LOVELACE',
      zip: '75001-1234',
      dob: '04/12/1995',
    });
    expect(keys).toEqual([EMAIL, PHONE, NAME_ZIP_DOB]);
    expect(offerId).toBeUndefined();
  });

  it('takes hashed values (upper-case hex lowered) and builds the same keys', () => {
    const hashed = {
      email: hashOf('email', 'ada.lovelace@gmail.com')!.toUpperCase(),
      phone: hashOf('phone', '5125550100'),
      last_name: hashOf('last_name', 'Lovelace'),
      zip: hashOf('zip', '75001'),
      dob: hashOf('dob', '1995-04-12'),
    };
    expect(parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, { hashed }).keys).toEqual([EMAIL, PHONE, NAME_ZIP_DOB]);
  });

  it('lets a hashed key win over the same raw key, key by key', () => {
    const other = hashOf('email', 'someone.else@example.com')!;
    const { keys } = parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, {
      email: 'ada.lovelace@gmail.com',
      phone: '5125550100',
      hashed: { email: other },
    });
    expect(keys).toEqual([{ type: 'email', hash: keyedPersonKey(TEST_PERSON_KEY_SECRET, other) }, PHONE]);
  });

  it('mixes raw and hashed parts of the name key', () => {
    const { keys } = parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, {
      last_name: 'Lovelace',
      zip: '75001',
      hashed: { dob: hashOf('dob', '1995-04-12') },
    });
    expect(keys).toEqual([NAME_ZIP_DOB]);
  });

  it('makes no name key without all three of last name, ZIP and date of birth', () => {
    expect(parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, { last_name: 'Lovelace', zip: '75001' }).keys).toEqual([]);
    expect(parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, { last_name: 'Lovelace', dob: '1995-04-12' }).keys).toEqual([]);
    expect(parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, { zip: '75001', dob: '1995-04-12' }).keys).toEqual([]);
  });

  it('accepts fields that make no key (a ZIP, a first name, an address, birth_year, ip): usable, no key', () => {
    for (const body of [
      { zip: '75001' },
      { first_name: 'Ada' },
      { address: '1 Main St' },
      { hashed: { birth_year: hashOf('birth_year', '1995') } },
      { hashed: { ip: hashOf('ip', '73.12.44.10') } },
    ]) {
      expect(parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, body).keys).toEqual([]);
    }
  });

  it('leaves out a raw value that cannot be normalized', () => {
    expect(parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, { email: 'not-an-email', phone: '512-555-0100' }).keys).toEqual([PHONE]);
  });

  it('lower-cases offer_id', () => {
    expect(
      parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, { email: 'a@b.co', offer_id: '7C0D7A4E-0000-4000-8000-00000000ABCD' }).offerId,
    ).toBe('7c0d7a4e-0000-4000-8000-00000000abcd');
  });

  it.each<[string, unknown, { status: number; code: string; field?: unknown }]>([
    ['no usable field', { foo: 'bar' }, { status: 400, code: 'MALFORMED_REQUEST', field: undefined }],
    ['only blank values', { email: '  ', first_name: '' }, { status: 400, code: 'MALFORMED_REQUEST', field: undefined }],
    [
      'only values that do not normalize',
      { email: 'john.doe', phone: '123', dob: '1990-02-30' },
      { status: 400, code: 'MALFORMED_REQUEST', field: undefined },
    ],
    ['non-string values', { email: 42, phone: ['5125550100'] }, { status: 400, code: 'MALFORMED_REQUEST', field: undefined }],
    ['an empty hashed object', { hashed: {} }, { status: 400, code: 'MALFORMED_REQUEST', field: undefined }],
    ['unknown hashed keys only', { hashed: { first_name: 'a'.repeat(64) } }, { status: 400, code: 'MALFORMED_REQUEST', field: undefined }],
    ['a body that is not an object', ['email'], { status: 400, code: 'MALFORMED_REQUEST', field: undefined }],
    ['offer_id not a UUID', { email: 'a@b.co', offer_id: 'x' }, { status: 400, code: 'INVALID_FIELD', field: 'offer_id' }],
    ['offer_id not a string', { email: 'a@b.co', offer_id: 7 }, { status: 400, code: 'INVALID_FIELD', field: 'offer_id' }],
    ['hashed not an object', { hashed: 'abc' }, { status: 400, code: 'INVALID_FIELD', field: 'hashed' }],
    [
      'a hashed value not a SHA-256 hex',
      { hashed: { email: 'ada@example.com' } },
      { status: 400, code: 'INVALID_FIELD', field: 'hashed.email' },
    ],
  ])('refuses %s', (_label, body, expected) => {
    expect(refusal(body)).toEqual(expected);
  });

  it('names the field in the reason', () => {
    const reason = (body: unknown) => {
      try {
        parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, body);
      } catch (e) {
        return (e as ApiError).reason;
      }
      return undefined;
    };
    expect(reason({ email: 'a@b.co', offer_id: 'x' })).toBe('offer_id must be a UUID');
    expect(reason({ hashed: 'abc' })).toBe('hashed must be an object');
    expect(reason({ hashed: { zip: hashOf('zip', '75001'), email: 'ada@example.com' } })).toBe(
      'hashed.email must be a lower-case hex SHA-256',
    );
  });

  it('checks offer_id before usability (the field is named even when nothing else is usable)', () => {
    expect(refusal({ offer_id: 'x' })).toEqual({ status: 400, code: 'INVALID_FIELD', field: 'offer_id' });
  });

  it('builds keys with the domain rule (dedupeKeysFromHashes), so the name key is the hash of the three hashes', () => {
    const h = { last_name: hashOf('last_name', 'Lovelace')!, zip: hashOf('zip', '75001')!, dob: hashOf('dob', '1995-04-12')! };
    expect(parseDupeCheckRequest(TEST_PERSON_KEY_SECRET, { hashed: h }).keys).toEqual(dedupeKeysFromHashes(TEST_PERSON_KEY_SECRET, h));
  });
});
