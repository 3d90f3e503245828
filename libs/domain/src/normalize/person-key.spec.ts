import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';
import { optOutKeysFromHashes } from '../opt-outs/opt-outs';
import { dedupeKeysFromHashes, hashOf, leadDedupeKeys } from './dedupe-keys';
import { sha256Hex } from './normalize';
import { keyedPersonKey, personKeySecret } from './person-key';

/**
 * The attack the keyed person keys stop: a US phone has few values under one
 * area code and exchange, so its plain SHA-256 is reversed by hashing every
 * one of them. Here the 10,000 numbers of 512-555-xxxx (a whole area code is
 * a thousand times more, minutes on one core for a plain SHA-256).
 */
const PHONE = '5125550147';
const CANDIDATES = Array.from({ length: 10_000 }, (_, i) => `512555${String(i).padStart(4, '0')}`);

/** The number whose candidate hash is `target`, trying every candidate. */
function bruteForce(target: string, hashOfCandidate: (digits: string) => string): string | undefined {
  return CANDIDATES.find((digits) => hashOfCandidate(digits) === target);
}

describe('keyed person keys', () => {
  const plain = hashOf('phone', PHONE)!;
  const stored = leadDedupeKeys(TEST_PERSON_KEY_SECRET, { personal: { phone: PHONE } }).find((k) => k.type === 'phone')!.hash;

  it('the area-code search reverses a plain SHA-256 of a phone', () => {
    expect(bruteForce(plain, (d) => sha256Hex(d))).toBe(PHONE);
  });

  it('the same search finds nothing against the stored key without the server secret (a guessed secret neither)', () => {
    expect(stored).not.toBe(plain);
    expect(bruteForce(stored, (d) => sha256Hex(d))).toBeUndefined();
    const guessed = personKeySecret('lead-router person key secret guessed by someone');
    expect(bruteForce(stored, (d) => keyedPersonKey(guessed, sha256Hex(d)))).toBeUndefined();
  });

  it("with the secret, the stored key is what an affiliate's hashed input (the contract's SHA-256) becomes, for duplicates and opt-outs", () => {
    expect(dedupeKeysFromHashes(TEST_PERSON_KEY_SECRET, { phone: plain })).toEqual([{ type: 'phone', hash: stored }]);
    expect(optOutKeysFromHashes(TEST_PERSON_KEY_SECRET, { phone: plain.toUpperCase() })).toEqual([{ type: 'phone', hash: stored }]);
    expect(bruteForce(stored, (d) => keyedPersonKey(TEST_PERSON_KEY_SECRET, sha256Hex(d)))).toBe(PHONE);
  });

  it('is HMAC-SHA-256 of the lower-case hex SHA-256 under the secret, as openssl computes it', () => {
    // printf '%s' 9b80ecf2…8d27 | openssl dgst -sha256 -hmac 'lead-router development person key secret: not for production'
    expect(keyedPersonKey(TEST_PERSON_KEY_SECRET, '9b80ecf2e7574a288f42f1cf82ca84c20fd2ce1b866994b6dcacefffa64e8d27')).toBe(
      '2f1c4d5066286937f31be8264642cd163f1ee2767545263bdf913daecf283fea',
    );
  });

  it('refuses a secret shorter than 32 characters', () => {
    expect(() => personKeySecret('too short')).toThrow(/32 characters/);
  });
});
