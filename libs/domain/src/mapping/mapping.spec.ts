import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapFields } from './field-map';
import { setValueAt, valueAt } from './json-path';
import { MappingConfigError } from './mapping-errors';
import type { DocumentShape } from './mapping.types';
import { capReason, MAX_BUYER_REASON } from './response-rules';
import { partnerSearchView, SEARCH_FIELDS } from '../partners/search-view';
import {
  LEAD_DOCUMENT_FIELDS,
  PARTNER_SEARCH_DOCUMENT_FIELDS,
  PARTNER_SUBMIT_DOCUMENT_FIELDS,
  partnerSearchDocument,
  partnerSubmitDocument,
  schoolLeadDocument,
  type SchoolLead,
} from './documents';

/** A lead as delivery sends it to a school (test/fixtures/school-lead.json, as the school adapters' tests use it). */
function sampleLead(overrides: Partial<SchoolLead> = {}): SchoolLead {
  const lead = JSON.parse(readFileSync(join(__dirname, '../../../../test/fixtures/school-lead.json'), 'utf8')) as SchoolLead;
  return { ...lead, ...overrides };
}

/** Every path a shape names that the document holds (lead groups and fields are optional in a lead). */
function expectShape(doc: object, shape: { readonly [field: string]: DocumentShape }): void {
  const walk = (s: DocumentShape, path: string): void => {
    if (s === 'any-key') return expect(valueAt(doc, path)).toEqual(expect.any(Object));
    if (s === true) return expect(valueAt(doc, path)).not.toBeUndefined();
    for (const [key, child] of Object.entries(s)) {
      if (path.startsWith('lead') && valueAt(doc, `${path}.${key}`) === undefined) continue;
      walk(child, `${path}.${key}`);
    }
  };
  expect(Object.keys(doc)).toEqual(Object.keys(shape));
  for (const [key, s] of Object.entries(shape)) walk(s, key);
}

describe('schoolLeadDocument', () => {
  const d = sampleLead();

  it('is the documented default document', () => {
    expect(schoolLeadDocument(d)).toMatchObject({
      lead_id: d.leadId,
      offer: { id: d.offer.id, name: 'Northfield Online Nursing', school_name: 'Northfield University' },
      lead: d.lead,
      tracking: { ip_address: '203.0.113.9', subid: 's-42' },
      consumer_ip: '203.0.113.9',
      program_id: 'bsn',
      answers: { hs_grad_year: '2015' },
      consent: { tcpa_consent: true, tcpa_text: d.consent.tcpaText, button_label: 'Request Info', consented_at: d.consent.consentedAt },
      submitted_at: '2026-01-05T14:03:07.000Z',
    });
    expect(schoolLeadDocument(d).consent).toMatchObject({ ip: '203.0.113.9', form_cert_url: null, universal_lead_cert: null });
  });

  it('sends only the four lead groups', () => {
    const odd = sampleLead({ lead: { personal: { email: 'a@b.example' }, extra: { x: '1' } } as never });
    expect(schoolLeadDocument(odd).lead).toEqual({ personal: { email: 'a@b.example' } });
  });

  it('has exactly the fields the catalog lets a field_map source name', () => {
    const doc = schoolLeadDocument(d);
    expectShape(doc, LEAD_DOCUMENT_FIELDS);
    expect(Object.keys(doc.consent)).toEqual(Object.keys(LEAD_DOCUMENT_FIELDS.consent as object));
    expect(Object.keys(doc.offer)).toEqual(Object.keys(LEAD_DOCUMENT_FIELDS.offer as object));
  });
});

describe('mapFields', () => {
  const doc = schoolLeadDocument(sampleLead());

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
    expect(
      mapFields(doc, { dob: 'lead.personal.date_of_birth', bg: 'lead.background.us_citizen', utm: 'tracking.utm_source', id: 'lead_id' }),
    ).toEqual({
      id: doc.lead_id,
    });
  });

  it.each([
    [{ a: 'lead_id', 'a.b': 'lead_id' }],
    [{ 'a.b': 'lead_id', a: 'lead_id' }],
    [{ '__proto__.polluted': '=yes' }],
    [{ 'a..b': 'lead_id' }],
  ])('refuses targets the catalog check would refuse (%j) as a MappingConfigError', (fieldMap) => {
    expect(() => mapFields(doc, fieldMap)).toThrow(MappingConfigError);
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

describe('partner documents', () => {
  const d = sampleLead();

  it('a search document has the search, each asked external id, the lead groups and nothing else', () => {
    const doc = partnerSearchDocument({
      searchId: 's-1',
      externalIds: ['westlake-001', 'harbor-002'],
      lead: { ...d.lead, extra: { x: '1' } } as never,
      tracking: d.tracking,
      isTest: false,
    });
    expect(doc).toEqual({
      search_id: 's-1',
      external_ids: ['westlake-001', 'harbor-002'],
      offers: [{ external_id: 'westlake-001' }, { external_id: 'harbor-002' }],
      lead: d.lead,
      tracking: d.tracking,
      is_test: false,
    });
    expectShape(doc, PARTNER_SEARCH_DOCUMENT_FIELDS);
  });

  it("a search document carries a partner's view of the lead, derived and hashed fields included, as a field_map may name them", () => {
    const view = partnerSearchView(d, SEARCH_FIELDS, new Date('2026-09-30T00:00:00Z'));
    const doc = partnerSearchDocument({ searchId: 's-1', externalIds: ['westlake-001'], ...view, isTest: true });
    expect(doc.lead).toEqual(view.lead);
    expect(doc.lead.hashed?.email).toMatch(/^[0-9a-f]{64}$/);
    expectShape(doc, PARTNER_SEARCH_DOCUMENT_FIELDS);
    expect(mapFields(doc, { Hash: 'lead.hashed.email', Band: 'lead.personal.age_band' })).toEqual({
      Hash: doc.lead.hashed?.email,
      Band: doc.lead.personal?.age_band,
    });
  });

  it('a submit document has the result, the lead, answers and consent, with exactly the fields a field_map may name', () => {
    const doc = partnerSubmitDocument({ ...d, searchId: 's-1', partnerResultId: 'pr-1', externalId: 'westlake-001' });
    expect(doc).toMatchObject({
      lead_id: d.leadId,
      search_id: 's-1',
      partner_result_id: 'pr-1',
      external_id: 'westlake-001',
      answers: { hs_grad_year: '2015' },
      consent: { tcpa_consent: true, tcpa_text: d.consent.tcpaText, button_label: 'Request Info', ip: '203.0.113.9' },
    });
    expect(doc).not.toHaveProperty('offer');
    expectShape(doc, PARTNER_SUBMIT_DOCUMENT_FIELDS);
  });
});

describe('capReason', () => {
  it('keeps at most 500 characters, trimmed, storable, without cutting a surrogate pair', () => {
    expect(capReason('x'.repeat(600))).toHaveLength(MAX_BUYER_REASON);
    expect(capReason(`${'x'.repeat(499)}😀tail`)).toBe('x'.repeat(499));
    expect(capReason('  a\u0000b \ud800 ')).toBe('a\ufffdb \ufffd');
    expect(capReason('   ')).toBeNull();
  });
});
