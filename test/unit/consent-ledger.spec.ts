import {
  chainDigest,
  checkEventProof,
  checkLinks,
  consentLedgerEntry,
  GENESIS,
  linkRecords,
  ProofLine,
  recordHash,
  recordText,
  sealDue,
  StoredLink,
  testMode,
} from '../../libs/domain/src';
import { consentRecord } from '../support/consent-record';
import { TEST_PERSON_KEY_SECRET } from '../support/person-key';

/** The consent ledger's rules (libs/domain/src/consent: consent-ledger.ts, consent-proof.ts), pure. */

const EMAIL_SHA256 = '9b0b7067a0e950b220eba3b13840da2c818d49793f13d5ec2e541b53b378b02f';
const PHONE_SHA256 = '9b80ecf2e7574a288f42f1cf82ca84c20fd2ce1b866994b6dcacefffa64e8d27';

const record = consentRecord;

describe('the canonical form (RFC 8785) and the digests', () => {
  it('reproduces what sha256sum computes on the record file (docs/consent-ledger.md)', () => {
    // Computed outside this code: the record file through `sha256sum`, then `printf '%s%s' <64 zeros> <record hash> | sha256sum`.
    expect(recordText(record(1))).toBe(
      '{"affiliate_id":"6a1f7e0e-3d1c-4b8e-9f21-3c4d5e6f7a8b","button_label":"Request info","campaign_id":"7a0a82d7-3295-4655-8f2e-da5f2393642e","consented_at":"2026-11-20T15:04:05.123Z","email_sha256":null,"form":"lead-router/consent-record/1","form_cert_url":null,"ip":"73.12.44.10","ip_source":"consumer","kind":"result_submit","lead_id":"0194a3b2-7c1d-7e2f-8a3b-4c5d6e7f8091","offer_id":"2b8f9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d","phone_sha256":null,"position":1,"program_id":"mba","school_id":"3c9a0b1c-2d3e-4f5a-9b6c-7d8e9f0a1b2c","search_id":"0194a3b2-6b1d-7e2f-8a3b-4c5d6e7f8091","statement":"I agree that Northfield may call me. “Quotes” & <tags>, café","tcpa_consent":true,"universal_lead_cert":null}',
    );
    expect(recordHash(record(1))).toBe('eee73ba36d714e572d7d21cda2c756fdd021e8594e24b1665128f9691033e3e7');
    expect(chainDigest(GENESIS, recordHash(record(1)))).toBe('37595bb741da5bb79565deb77495db5332b98271d57565e93a42db3165767e5e');
  });

  it('puts contact data in a record only as the person keys of duplicates (HMAC under the secret of the normalized sha256)', () => {
    const entry = consentLedgerEntry(
      testMode(false),
      TEST_PERSON_KEY_SECRET,
      { personal: { email: ' Ada.Love+x@GoogleMail.com ', phone: '+1 (512) 555-0147', first_name: 'Ada' } },
      's1',
    );
    // Computed outside this code: printf '%s' adalove@gmail.com | sha256sum (EMAIL_SHA256), printf '%s' 5125550147 | sha256sum
    // (PHONE_SHA256), then printf '%s' <that sha256> | openssl dgst -sha256 -hmac '<the development secret>'.
    expect(EMAIL_SHA256).toBe('9b0b7067a0e950b220eba3b13840da2c818d49793f13d5ec2e541b53b378b02f');
    expect(entry).toEqual({
      schoolId: 's1',
      emailKey: '03f002d3cb74cde16e2d96f53799adcee2f560d8e2694569e78f715f9dc70109',
      phoneKey: '2f1c4d5066286937f31be8264642cd163f1ee2767545263bdf913daecf283fea',
    });
    expect(PHONE_SHA256).toBe('9b80ecf2e7574a288f42f1cf82ca84c20fd2ce1b866994b6dcacefffa64e8d27');
    expect(consentLedgerEntry(testMode(true), TEST_PERSON_KEY_SECRET, { personal: { email: 'a@b.c' } }, 's1')).toBeNull();
  });
});

describe('linking and checking the chain', () => {
  const linked = (n: number) => {
    const links = linkRecords(
      null,
      Array.from({ length: n }, (_, i) => ({ seq: 100 + i })),
      (_row, position) => record(position),
    );
    return links.map((l): StoredLink => ({ ...l, leadId: `lead-${l.position}`, record: record(l.position) }));
  };

  it('links in the order given, from the genesis', () => {
    const links = linked(3);
    expect(links.map((l) => [l.position, l.prevDigest === (l.position === 1 ? GENESIS : links[l.position - 2].digest)])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    expect(checkLinks({ position: 0, digest: GENESIS }, links)).toEqual({ cursor: { position: 3, digest: links[2].digest } });
  });

  it('names the first record changed, missing, moved or whose digest changed', () => {
    const start = { position: 0, digest: GENESIS };
    const changed = linked(4);
    changed[2] = { ...changed[2], record: record(3, 'edited') };
    expect(checkLinks(start, changed)).toMatchObject({ break: { position: 3, leadId: 'lead-3', problem: 'record-changed' } });
    const missing = linked(4).filter((l) => l.position !== 2);
    expect(checkLinks(start, missing)).toMatchObject({ break: { position: 2, leadId: null, problem: 'missing' } });
    const l = linked(4);
    const moved = [l[0], { ...l[2], position: 2 }, { ...l[1], position: 3 }, l[3]];
    expect(checkLinks(start, moved)).toMatchObject({ break: { position: 2, problem: 'link-broken' } });
    const gone = linked(2);
    gone[1] = { ...gone[1], record: null };
    expect(checkLinks(start, gone)).toMatchObject({ break: { position: 2, problem: 'evidence-missing' } });
    const digest = linked(2);
    digest[1] = { ...digest[1], digest: 'f'.repeat(64) };
    expect(checkLinks(start, digest)).toMatchObject({ break: { position: 2, problem: 'digest-changed' } });
  });

  it('checks a bundle proof up to the seal of its day', () => {
    const links = linked(5);
    const lines = new Map<number, ProofLine>(
      links.map((l) => [l.position, { position: l.position, recordHash: l.recordHash, digest: l.digest }]),
    );
    const seal = { day: '2026-11-20', count: 5, headDigest: links[4].digest, sealedAt: '2026-11-21T00:00:01.000Z' };
    const proof = { position: 2, recordHash: links[1].recordHash, prevDigest: links[1].prevDigest, digest: links[1].digest, seal };
    const text = recordText(record(2));
    expect(checkEventProof(text, proof, lines)).toBeNull();
    expect(checkEventProof(recordText(record(2, 'edited')), proof, lines)).toMatch(/does not hash/);
    expect(checkEventProof(text, { ...proof, seal: { ...seal, headDigest: 'f'.repeat(64) } }, lines)).toMatch(
      /does not reach the head digest/,
    );
    const cut = new Map(lines);
    cut.delete(4);
    expect(checkEventProof(text, proof, cut)).toMatch(/lack position 4/);
  });
});

describe('sealDue', () => {
  it('seals yesterday (UTC) once', () => {
    const now = new Date('2026-11-21T00:00:02Z');
    expect(sealDue(now, null)).toBe('2026-11-20');
    expect(sealDue(now, '2026-11-19')).toBe('2026-11-20');
    expect(sealDue(now, '2026-11-20')).toBeNull();
  });
});
