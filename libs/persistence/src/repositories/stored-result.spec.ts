import type { ResultEntry } from '@lr/contracts';
import { entryText, newResult, templateDigest } from './stored-result';

const entry = (id: string, expires: string): ResultEntry => ({
  svc_result_id: id,
  campaign_id: '0c6b5f37-5a4e-4d53-9f0e-2d9b4c1d7e01',
  offer: { id: '7b1e4a38-2f43-4f0b-8a4b-6a8b2b0e9c11', name: 'Nursing "BSN"', offer_type: 'shared', is_exclusive: false, tcpa_text: 'I agree…' },
  school: { name: 'Lakeside', logo_url: null },
  programs: [{ value: 'bsn', label: 'BSN', payout: 12.5 }],
  payout: 12.5,
  form_fields: [{ name: 'grad_year', label: 'Graduation year', type: 'select', required: true, options: [{ value: '2026', label: '2026' }] }],
  expires_at: expires,
});

describe('stored results', () => {
  it('rebuild the entry byte for byte from the template, the id and the expiry', () => {
    const expiresAt = new Date('2026-11-26T10:15:00.123Z');
    const e = entry('3f0a2b9e-8d1c-4e5f-a6b7-c8d9e0f1a2b3', expiresAt.toISOString());
    const r = newResult({ resultId: e.svc_result_id, entry: e, expiresAt, partnerData: null });
    expect(r.entryJson.toString('utf8')).toBe(JSON.stringify(e));
    expect(r.template.body).not.toContain(e.svc_result_id);
    expect(r.template.body).not.toContain('expires_at');
    expect(r.template.payout).toBe('12.5');
    expect(r.template.offerId).toBe(e.offer.id);
  });

  it('share one template between results that show the same thing', () => {
    const a = newResult({ resultId: 'a1', entry: entry('a1', '2026-11-26T10:00:00.000Z'), expiresAt: new Date('2026-11-26T10:00:00.000Z'), partnerData: null });
    const b = newResult({ resultId: 'b2', entry: entry('b2', '2026-11-26T11:00:00.000Z'), expiresAt: new Date('2026-11-26T11:00:00.000Z'), partnerData: null });
    expect(a.template).toEqual(b.template);
  });

  it('name a template by the first 128 bits of its SHA-256, as a uuid', () => {
    // sha256("{}") = 44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a
    expect(templateDigest('{}')).toBe('44136fa3-55b3-678a-1146-ad16f7e8649e');
  });

  it('rebuild an entry whose template shows nothing else', () => {
    expect(JSON.parse(entryText('x', '{}', new Date(0)))).toEqual({ svc_result_id: 'x', expires_at: '1970-01-01T00:00:00.000Z' });
  });
});
