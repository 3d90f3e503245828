import type { Lead } from '../lead-input';
import { testMode } from '../test-mode/test-mode';
import {
  consentEvidenceErasure,
  CONSENT_RECORD_FIELDS,
  contactValuesOf,
  ERASED_IP,
  eraseLeadDocument,
  eraseStoredContact,
  expireAtErasure,
  holdsPerson,
  maskContactJson,
  maskContactText,
} from './erasure';
import { optOutKeysFromHashes, optOutKeysOf } from './opt-outs';
import { hashOf } from '../normalize/dedupe-keys';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';

const lead: Lead = {
  personal: {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'Ada.Lovelace+uni@gmail.com',
    phone: '5125550147',
    date_of_birth: '1995-04-12',
  },
  address: { address_line_1: '12 Analytical Way', city: 'Austin', state: 'TX', zip_code: '78701-1234' },
  education: {
    education_level: 'associate',
    high_school_graduation_year: '2013',
    start_timeline: '1_3_months',
    learning_preference: 'online',
  },
  background: { military_affiliation: 'veteran', us_citizen: 'yes' },
};

describe('the erasure of a lead document', () => {
  it('removes names, email, phone, date of birth, street, city and ZIP, and keeps state, education and background', () => {
    expect(eraseLeadDocument(lead)).toEqual({
      address: { state: 'TX' },
      education: {
        education_level: 'associate',
        high_school_graduation_year: '2013',
        start_timeline: '1_3_months',
        learning_preference: 'online',
      },
      background: { military_affiliation: 'veteran', us_citizen: 'yes' },
    });
  });

  it('keeps only what it names: an unknown group or field is erased too, an empty group goes', () => {
    const odd = {
      personal: { email: 'a@b.co' },
      address: { city: 'Austin' },
      extra: { note: 'call Ada' },
      education: { nickname: 'Ada' },
    } as unknown as Lead;
    expect(eraseLeadDocument(odd)).toEqual({});
  });

  it('is idempotent, and leaves the document it was given unchanged', () => {
    const copy = JSON.parse(JSON.stringify(lead));
    const once = eraseLeadDocument(lead);
    expect(eraseLeadDocument(once)).toEqual(once);
    expect(lead).toEqual(copy);
  });

  it('recognises the person by the normalized hashes of email or phone, however they were written', () => {
    expect(holdsPerson(TEST_PERSON_KEY_SECRET, lead, optOutKeysOf(TEST_PERSON_KEY_SECRET, { phone: '+1 (512) 555-0147' }))).toBe(true);
    expect(holdsPerson(TEST_PERSON_KEY_SECRET, lead, optOutKeysOf(TEST_PERSON_KEY_SECRET, { email: 'adalovelace@googlemail.com' }))).toBe(
      true,
    );
    expect(
      holdsPerson(
        TEST_PERSON_KEY_SECRET,
        lead,
        optOutKeysFromHashes(TEST_PERSON_KEY_SECRET, { phone: hashOf('phone', '512-555-0147')!.toUpperCase() }),
      ),
    ).toBe(true);
    expect(
      holdsPerson(TEST_PERSON_KEY_SECRET, lead, optOutKeysOf(TEST_PERSON_KEY_SECRET, { phone: '5125550148', email: 'ada@example.com' })),
    ).toBe(false);
    expect(
      holdsPerson(
        TEST_PERSON_KEY_SECRET,
        eraseLeadDocument(lead),
        optOutKeysOf(TEST_PERSON_KEY_SECRET, { phone: '5125550147', email: lead.personal!.email }),
      ),
    ).toBe(false);
  });
});

describe('contact values in free text', () => {
  const values = contactValuesOf([lead], { emails: ['other.address@example.org'], phones: ['(737) 555 0199'] });

  it('are masked wherever a buyer or an affiliate repeated them, and nothing else is', () => {
    const text =
      'Already enrolled: ADA lovelace <ada.lovelace+uni@gmail.com>, call (512) 555-0147 or +1 512.555.0147, born 4/12/1995, 12 Analytical Way, Austin; Adam stays';
    expect(maskContactText(text, values)).toBe(
      'Already enrolled: [erased] [erased] <[erased]>, call [erased] or [erased], born [erased], [erased], [erased]; Adam stays',
    );
    expect(maskContactText('write to other.address@example.org or 7375550199; order 15125550147000', values)).toBe(
      'write to [erased] or [erased]; order 15125550147000',
    );
  });

  it('are masked in every string of a JSON value, keys and other values kept', () => {
    expect(maskContactJson({ notes: ['Ada called', 3, null], receipt: { echo: '5125550147', ok: true } }, values)).toEqual({
      notes: ['[erased] called', 3, null],
      receipt: { echo: '[erased]', ok: true },
    });
  });
});

describe('the erasure of a stored search or lead', () => {
  it('erases the lead, the consumer IP and tracking.ip_address, and masks the other tracking values', () => {
    const values = contactValuesOf([lead]);
    const tracking = { ip_address: '73.12.44.10', subid: 'e2e', utm_campaign: 'for-ada-lovelace', click_id: 'abc' };
    expect(eraseStoredContact({ lead, tracking, consumerIp: '73.12.44.10', ipSource: 'consumer' }, values)).toEqual({
      lead: eraseLeadDocument(lead),
      tracking: { subid: 'e2e', utm_campaign: 'for-[erased]-[erased]', click_id: 'abc' },
      consumerIp: ERASED_IP,
      ipSource: 'consumer',
    });
  });

  it("keeps an affiliate server's address recorded in place of the consumer's", () => {
    expect(
      eraseStoredContact({ lead, tracking: {}, consumerIp: '198.51.100.7', ipSource: 'caller_server' }, contactValuesOf([lead])).consumerIp,
    ).toBe('198.51.100.7');
  });

  it("expires the search's results at the erasure, not later than they would", () => {
    const at = new Date('2026-11-26T12:00:00Z');
    const expires = [new Date('2026-11-26T11:00:00Z'), new Date('2026-11-26T12:15:00Z')];
    expect(expireAtErasure(expires, at)).toEqual([expires[0], at]);
  });
});

describe("the erasure of a lead's consent evidence", () => {
  it("keeps a live lead's evidence whole: every field is part of the consent record", () => {
    expect(consentEvidenceErasure(testMode(false), 'consumer')).toEqual({
      kept: CONSENT_RECORD_FIELDS,
      eraseIp: false,
      maskButtonLabel: false,
    });
  });

  it("erases a test lead's consumer IP (it is not chained and no buyer relies on it)", () => {
    const e = consentEvidenceErasure(testMode(true), 'consumer');
    expect(e).toMatchObject({ eraseIp: true, maskButtonLabel: true });
    expect(e.kept).not.toContain('ip');
    expect(consentEvidenceErasure(testMode(true), 'caller_server')).toMatchObject({ eraseIp: false });
  });
});
