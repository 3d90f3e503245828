import { mergeLead, sameLead } from './lead-merge';

describe('mergeLead / sameLead', () => {
  const base = { personal: { first_name: 'Ann', email: 'a@x.org' }, address: { state: 'CA' } };
  it('lays the submit fields over the search lead field by field', () => {
    expect(mergeLead(base, { personal: { email: 'b@x.org' }, education: { education_level: 'bachelor' } })).toEqual({
      personal: { first_name: 'Ann', email: 'b@x.org' },
      address: { state: 'CA' },
      education: { education_level: 'bachelor' },
    });
    expect(mergeLead(base, null)).toBe(base);
  });
  it('compares values, not key order or empty groups', () => {
    expect(sameLead(base, { address: { state: 'CA' }, personal: { email: 'a@x.org', first_name: 'Ann' }, education: {} })).toBe(true);
    expect(sameLead(base, mergeLead(base, { personal: { first_name: 'Ann' } }))).toBe(true);
    expect(sameLead(base, mergeLead(base, { personal: { first_name: 'Anne' } }))).toBe(false);
    expect(sameLead(base, mergeLead(base, { address: { city: 'Fresno' } }))).toBe(false);
  });
});
