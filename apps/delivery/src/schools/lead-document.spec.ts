import { LEAD_DOCUMENT_FIELDS, LeadDocumentShape } from '@lr/domain';
import { valueAt } from './json-path';
import { leadDocument } from './lead-document';
import { sampleDelivery } from '../../../../test/support/school-delivery';

describe('leadDocument', () => {
  const d = sampleDelivery({ adapter: 'sandbox', url: 'http://127.0.0.1:4100/schools/a/leads' });

  it('is the documented default document', () => {
    expect(leadDocument(d)).toMatchObject({
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
    expect(leadDocument(d).consent).toMatchObject({ ip: '203.0.113.9', form_cert_url: null, universal_lead_cert: null });
  });

  it('sends only the four lead groups', () => {
    const odd = sampleDelivery(d.settings, { lead: { personal: { email: 'a@b.example' }, extra: { x: '1' } } as never });
    expect(leadDocument(odd).lead).toEqual({ personal: { email: 'a@b.example' } });
  });

  it('has exactly the fields the catalog lets a field_map source name', () => {
    const doc = leadDocument(d);
    expect(Object.keys(doc)).toEqual(Object.keys(LEAD_DOCUMENT_FIELDS));
    const walk = (shape: LeadDocumentShape, path: string): void => {
      if (shape === 'any-key') return expect(valueAt(doc, path)).toEqual(expect.any(Object));
      if (shape === true) return expect(valueAt(doc, path)).not.toBeUndefined();
      for (const [key, child] of Object.entries(shape)) {
        // Lead groups and fields are optional in a lead; the sample has some of them.
        if (path.startsWith('lead') && valueAt(doc, `${path}.${key}`) === undefined) continue;
        walk(child, `${path}.${key}`);
      }
    };
    for (const [key, shape] of Object.entries(LEAD_DOCUMENT_FIELDS)) walk(shape, key);
    expect(Object.keys(doc.consent)).toEqual(Object.keys(LEAD_DOCUMENT_FIELDS.consent as object));
    expect(Object.keys(doc.offer)).toEqual(Object.keys(LEAD_DOCUMENT_FIELDS.offer as object));
  });
});
