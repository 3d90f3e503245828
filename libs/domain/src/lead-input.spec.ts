import { checkLeadField, parseLead, usPhoneDigits } from './lead-input';

const today = new Date('2026-11-21T12:00:00Z');

describe('checkLeadField', () => {
  it.each([
    ['personal.phone', '+1 (512) 555-0100', '5125550100'],
    ['personal.phone', '1-512-555-0100', '5125550100'],
    ['personal.phone', '512.555.0100', '5125550100'],
    ['address.state', 'tx', 'TX'],
    ['address.zip_code', '78701-1234', '78701-1234'],
    ['education.education_level', 'Bachelor', 'bachelor'],
    ['background.us_citizen', 'YES', 'yes'],
    ['education.high_school_graduation_year', 2015, '2015'],
    ['personal.date_of_birth', '2000-02-29', '2000-02-29'],
    ['personal.email', ' Jane.Doe+x@Example.com ', 'Jane.Doe+x@Example.com'],
  ])('%s accepts %j', (path, input, stored) => {
    expect(checkLeadField(path, input, today)).toEqual({ value: stored });
  });

  it.each([
    ['personal.phone', '555-0100', /US phone/],
    ['personal.phone', '+44 20 7946 0958', /US phone/],
    ['address.state', 'XX', /one of: AL/],
    ['address.zip_code', '1234', /5 digits/],
    ['education.education_level', 'phd', /one of: less_than_high_school/],
    ['education.high_school_graduation_year', '15', /four-digit/],
    ['personal.date_of_birth', '2001-02-29', /real date/],
    ['personal.date_of_birth', '02/03/1990', /YYYY-MM-DD/],
    ['personal.date_of_birth', '2015-01-01', /13 to 100/],
    ['personal.date_of_birth', '1920-01-01', /13 to 100/],
    ['personal.email', 'not-an-email', /email/],
    ['personal.first_name', 42, /string/],
  ])('%s refuses %j', (path, input, message) => {
    const r = checkLeadField(path, input, today);
    expect('error' in r && r.error).toMatch(message);
  });
});

describe('parseLead', () => {
  it('folds flat keys into the nested form', () => {
    const { lead, errors } = parseLead({ email: 'a@b.co', zip: '78701', state: 'tx', personal: { first_name: 'Ann' } }, 'lead', today);
    expect(errors).toEqual([]);
    expect(lead).toEqual({ personal: { first_name: 'Ann', email: 'a@b.co' }, address: { zip_code: '78701', state: 'TX' } });
  });

  it('names each bad field as the caller sent it', () => {
    const { errors } = parseLead({ personal: { email: 'x' }, phone: '12' }, 'lead', today);
    expect(errors.map((e) => e.field)).toEqual(['lead.personal.email', 'lead.phone']);
    expect(errors.every((e) => e.code === 'INVALID_FIELD')).toBe(true);
  });

  it('refuses a flat key contradicting its nested twin', () => {
    const { errors } = parseLead({ personal: { email: 'a@b.co' }, email: 'c@d.co' }, 'lead', today);
    expect(errors).toEqual([expect.objectContaining({ field: 'lead.email', message: expect.stringMatching(/conflicts/) })]);
  });

  it('refuses a non-object lead or group', () => {
    expect(parseLead('x').errors[0]).toEqual(expect.objectContaining({ field: 'lead' }));
    expect(parseLead({ personal: [] }).errors[0]).toEqual(expect.objectContaining({ field: 'lead.personal' }));
  });

  it('usPhoneDigits refuses letters', () => {
    expect(usPhoneDigits('512-555-01OO')).toBeUndefined();
  });
});
