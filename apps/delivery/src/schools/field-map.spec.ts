import { mapFields } from './field-map';
import { setValueAt, valueAt } from './json-path';
import { leadDocument } from './lead-document';
import { SchoolConfigError } from './school-errors';
import { sampleDelivery } from '../../../../test/support/school-delivery';

describe('mapFields', () => {
  const doc = leadDocument(sampleDelivery({ adapter: 'json', url: 'https://api.school.example/leads' }));

  it('builds the school body from lead document paths and literals', () => {
    expect(
      mapFields(doc, {
        'contact.email': 'lead.personal.email',
        'contact.zip': 'lead.address.zip_code',
        'contact.name.first': 'lead.personal.first_name',
        sub_id: 'tracking.subid',
        grad_year: 'answers.hs_grad_year',
        program: 'program_id',
        'consent.agreed': 'consent.tcpa_consent',
        'consent.text': 'consent.tcpa_text',
        'consent.ip': 'consent.ip',
        'consent.cert': 'consent.form_cert_url',
        reference: 'lead_id',
        campaign: 'offer.id',
        vendor: '=lead-router',
        blank: '=',
        equation: '==1',
        education: 'lead.education',
      }),
    ).toEqual({
      contact: { email: 'ada@example.com', zip: '90210', name: { first: 'Ada' } },
      sub_id: 's-42',
      grad_year: '2015',
      program: 'bsn',
      consent: { agreed: true, text: doc.consent.tcpa_text, ip: '203.0.113.9', cert: null },
      reference: doc.lead_id,
      campaign: doc.offer.id,
      vendor: 'lead-router',
      blank: '',
      equation: '=1',
      education: { education_level: 'associate', high_school_graduation_year: '2015' },
    });
  });

  it('leaves out a target whose source the lead has no value for', () => {
    expect(mapFields(doc, { dob: 'lead.personal.date_of_birth', bg: 'lead.background.us_citizen', utm: 'tracking.utm_source', id: 'lead_id' })).toEqual({
      id: doc.lead_id,
    });
  });

  it.each([
    [{ a: 'lead_id', 'a.b': 'lead_id' }],
    [{ 'a.b': 'lead_id', a: 'lead_id' }],
    [{ '__proto__.polluted': '=yes' }],
    [{ 'a..b': 'lead_id' }],
  ])('refuses targets the catalog check would refuse (%j) as a SchoolConfigError', (fieldMap) => {
    expect(() => mapFields(doc, fieldMap)).toThrow(SchoolConfigError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('valueAt / setValueAt', () => {
  it('reads object keys and array indexes, never inherited properties', () => {
    const json = { data: { id: 7 }, errors: [{ message: 'm' }], n: null };
    expect(valueAt(json, 'data.id')).toBe(7);
    expect(valueAt(json, 'errors.0.message')).toBe('m');
    expect(valueAt(json, 'errors.1.message')).toBeUndefined();
    expect(valueAt(json, 'n')).toBeNull();
    expect(valueAt(json, 'n.x')).toBeUndefined();
    expect(valueAt(json, 'data.constructor')).toBeUndefined();
    expect(valueAt(json, 'errors.length')).toBeUndefined();
    expect(valueAt('text', 'length')).toBeUndefined();
  });

  it('creates objects on the way', () => {
    const body: Record<string, unknown> = { a: { x: 1 } };
    setValueAt(body, 'a.b.c', 2);
    expect(body).toEqual({ a: { x: 1, b: { c: 2 } } });
  });
});
