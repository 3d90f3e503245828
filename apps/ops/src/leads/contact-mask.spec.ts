import { contactScrubber, maskEmail, maskLead, maskName, maskPhone, scrubStrings } from './contact-mask';

describe('contact masks', () => {
  it('masks email, phone and names to a recognizable, unusable form', () => {
    expect(maskEmail('jane.doe@example.com')).toBe('j***@e***.com');
    expect(maskEmail('a@mail.school.edu')).toBe('a***@m***.edu');
    expect(maskEmail('not-an-email')).toBe('***');
    expect(maskPhone('5125550147')).toBe('********47');
    expect(maskPhone('(512) 555-0147')).toBe('********47');
    expect(maskPhone('+1 512 555 0147')).toBe('********47');
    expect(maskPhone('12')).toBe('***');
    expect(maskName('Lovelace')).toBe('L***');
    expect(maskName('Élodie')).toBe('É***');
  });

  it('masks a lead field by field, in the contract order; vocabulary fields stay readable', () => {
    const masked = maskLead({
      background: { us_citizen: 'yes' },
      education: { education_level: 'bachelor' },
      address: { zip_code: '75001-1234', state: 'TX', address_line_1: '1 Main St', city: 'Dallas', county: 'Dallas' },
      personal: {
        phone: '5125550147',
        email: 'ada@example.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
        date_of_birth: '1995-04-12',
        nickname: 'Addie',
      },
    });
    expect(masked).toEqual({
      personal: {
        first_name: 'A***',
        last_name: 'L***',
        email: 'a***@e***.com',
        phone: '********47',
        date_of_birth: '1995-**-**',
        nickname: '***',
      },
      address: { address_line_1: '***', city: 'Dallas', state: 'TX', zip_code: '750**', county: '***' },
      education: { education_level: 'bachelor' },
      background: { us_citizen: 'yes' },
    });
    expect(Object.keys(masked)).toEqual(['personal', 'address', 'education', 'background']);
    expect(Object.keys(masked.personal)).toEqual(['first_name', 'last_name', 'email', 'phone', 'date_of_birth', 'nickname']);
    expect(maskLead(null)).toEqual({});
  });

  it("scrubs the lead's own contact data and any email or phone number out of free text, leaving ids, times and IPs", () => {
    const scrub = contactScrubber({
      personal: { first_name: 'Ada', last_name: 'Lovelace', email: 'Ada.L@Example.com' },
      address: { address_line_1: '1 Main St' },
    });
    expect(scrub('Dup: ADA lovelace <ada.l@example.com> at 1 main st, call +1 (512) 555-0147')).toBe(
      'Dup: A*** l*** <a***@e***.com> at ***, call ********47',
    );
    expect(scrub('Adams College; Adalovelace')).toBe('Adams College; Adalovelace'); // names only as whole words
    expect(scrub('other@x.org 512.555.0100')).toBe('o***@x***.org ********00');
    const untouched = 'lead 6f1c0d2e-5125-5501-4712-512555014712 at 2026-11-21T19:58:05.351Z from 73.12.44.10, latency 5125 ms';
    expect(scrub(untouched)).toBe(untouched);
    expect(scrubStrings({ a: ['ada.l@example.com', 3, null], b: { c: 'Ada' } }, scrub)).toEqual({
      a: ['a***@e***.com', 3, null],
      b: { c: 'A***' },
    });
  });
});
