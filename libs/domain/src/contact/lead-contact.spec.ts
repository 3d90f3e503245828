import { checkEligibility } from '../qualify/eligibility';
import { joinContact, splitContact } from './lead-contact';

describe('splitContact / joinContact (what is sealed, what stays readable)', () => {
  const stored = {
    lead: {
      personal: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '5125550147', date_of_birth: '1990-06-15' },
      address: { address_line_1: '1 Main St', city: 'Austin', state: 'TX', zip_code: '75001' },
      education: { education_level: 'associate' },
      background: { us_citizen: 'yes' },
    },
    tracking: { ip_address: '203.0.113.9', subid: 's1' },
    consumerIp: '203.0.113.9',
    ipSource: 'consumer' as const,
  };
  const today = new Date('2025-06-14T12:00:00Z');

  it('keeps what the rules read readable (state, ZIP, education, background, the age) and seals the contact fields and the IP', () => {
    const { readable, contact } = splitContact(stored, today);
    expect(readable).toEqual({
      lead: {
        address: { state: 'TX', zip_code: '75001' },
        education: { education_level: 'associate' },
        background: { us_citizen: 'yes' },
        age: '34',
      },
      tracking: { subid: 's1' },
      consumerIp: '',
      ipSource: 'consumer',
    });
    expect(JSON.stringify(readable)).not.toMatch(/ada|lovelace|5125550147|1990|main st|austin|203\.0/i);
    expect(contact.consumerIp).toBe('203.0.113.9');
    expect(contact.trackingIp).toBe('203.0.113.9');
  });

  it('joins the two parts back into the record as it was sent; an unreadable part leaves the readable one', () => {
    const { readable, contact } = splitContact(stored, today);
    expect(joinContact(readable, contact)).toEqual(stored);
    expect(joinContact(readable, null)).toBe(readable);
  });

  it('judges the age rules on the readable age when the date of birth is sealed', () => {
    const { readable } = splitContact(stored, today);
    expect(checkEligibility({ min_age: 34 }, readable.lead, today)).toEqual(checkEligibility({ min_age: 34 }, stored.lead, today));
    expect(checkEligibility({ max_age: 33 }, readable.lead, today)).toEqual(checkEligibility({ max_age: 33 }, stored.lead, today));
  });
});
