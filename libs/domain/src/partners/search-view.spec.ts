import { createHash } from 'node:crypto';
import {
  CONTACT_SEARCH_FIELDS,
  DEFAULT_SEARCH_FIELDS,
  partnerSearchView,
  partnersWithContactAtSearch,
  SEARCH_FIELDS,
  searchFieldsOf,
} from './search-view';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const TODAY = new Date('2026-09-30T12:00:00Z');
const search = {
  lead: {
    personal: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: ' Ada.Lovelace+edu@GoogleMail.com',
      phone: '(512) 555-0147',
      date_of_birth: '1995-10-01',
    },
    address: { address_line_1: '1 Main St', city: 'Austin', state: 'TX', zip_code: '78701-1234' },
    education: { education_level: 'associate', high_school_graduation_year: '2013', start_timeline: 'immediately' },
    background: { military_affiliation: 'none', us_citizen: 'yes' },
  },
  tracking: { ip_address: '73.12.44.10', subid: 's-1', utm_source: 'mail' },
};

describe('partnerSearchView', () => {
  it('by default sends where the consumer is, the education and background answers, an age band and the hashed email and phone; no contact data', () => {
    expect(partnerSearchView(search, DEFAULT_SEARCH_FIELDS, TODAY)).toEqual({
      lead: {
        personal: { age_band: '25-34' },
        address: { state: 'TX', zip_code: '78701-1234' },
        education: { education_level: 'associate', high_school_graduation_year: '2013', start_timeline: 'immediately' },
        background: { military_affiliation: 'none', us_citizen: 'yes' },
        // The contract's normalized forms: a gmail address without dots and +tag, the phone's 10 digits.
        hashed: { email: sha256('adalovelace@gmail.com'), phone: sha256('5125550147') },
      },
      tracking: { subid: 's-1', utm_source: 'mail' },
    });
    const text = JSON.stringify(partnerSearchView(search, DEFAULT_SEARCH_FIELDS, TODAY));
    for (const contact of ['Ada', 'Lovelace', 'GoogleMail', '555', '1995', 'Main St', 'Austin', '73.12.44.10'])
      expect(text).not.toContain(contact);
  });

  it('sends exactly the fields named, and only those the lead has', () => {
    const fields = searchFieldsOf({
      search_fields: ['lead.personal.email', 'lead.personal.birth_year', 'tracking.ip_address', 'lead.address.city'],
    });
    expect(partnerSearchView(search, fields, TODAY)).toEqual({
      lead: { personal: { email: ' Ada.Lovelace+edu@GoogleMail.com', birth_year: '1995' }, address: { city: 'Austin' } },
      tracking: { ip_address: '73.12.44.10', subid: 's-1', utm_source: 'mail' },
    });
    expect(partnerSearchView({ lead: { address: { state: 'CA' } }, tracking: {} }, SEARCH_FIELDS, TODAY)).toEqual({
      lead: { address: { state: 'CA' } },
      tracking: {},
    });
    expect(partnerSearchView(search, [], TODAY).lead).toEqual({});
  });

  it('derives the age band from the date of birth on the day of the search', () => {
    const band = (dob: string) =>
      partnerSearchView({ lead: { personal: { date_of_birth: dob } }, tracking: {} }, DEFAULT_SEARCH_FIELDS, TODAY).lead.personal;
    expect(band('2008-09-30')).toEqual({ age_band: '18-24' }); // 18 today
    expect(band('2008-10-01')).toEqual({ age_band: 'under-18' }); // 18 tomorrow
    expect(band('1992-09-30')).toEqual({ age_band: '25-34' }); // 34 today
    expect(band('1991-09-30')).toEqual({ age_band: '35-44' });
    expect(band('1961-09-30')).toEqual({ age_band: '65+' });
    expect(band('not a date')).toBeUndefined();
  });

  it('leaves a hash out when the value cannot be normalized', () => {
    const view = partnerSearchView({ lead: { personal: { email: 'nobody', phone: '12' } }, tracking: {} }, DEFAULT_SEARCH_FIELDS, TODAY);
    expect(view.lead).toEqual({});
  });
});

describe('search fields of a partner', () => {
  it('are the catalog’s, else the default, which names no contact field', () => {
    expect(searchFieldsOf(null)).toBe(DEFAULT_SEARCH_FIELDS);
    expect(searchFieldsOf({})).toBe(DEFAULT_SEARCH_FIELDS);
    expect(DEFAULT_SEARCH_FIELDS.filter((f) => CONTACT_SEARCH_FIELDS.includes(f))).toEqual([]);
  });

  it('name the partners that receive contact data at search, and which', () => {
    expect(
      partnersWithContactAtSearch([
        { id: 'p1', name: 'Plain', settings: null },
        { id: 'p2', name: 'Calls back', settings: { search_fields: ['lead.address.state', 'lead.personal.phone', 'tracking.ip_address'] } },
        { id: 'p3', name: 'Narrow', settings: { search_fields: ['lead.address.state', 'lead.personal.birth_year'] } },
      ]),
    ).toEqual([{ partnerId: 'p2', partnerName: 'Calls back', fields: ['lead.personal.phone', 'tracking.ip_address'] }]);
  });
});
