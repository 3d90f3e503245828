import { randomUUID } from 'node:crypto';
import type { ResultEntry } from '@lr/contracts';
import { CampaignOffer, ownResult, partnerResult, payoutTerms } from '@lr/domain';
import { campaignOffer } from '../../../../test/support/catalog-builder';
import { entryText, newResult, templateDigest, templateOf } from './stored-result';

const entry = (id: string, expires: string): ResultEntry => ({
  svc_result_id: id,
  campaign_id: '0c6b5f37-5a4e-4d53-9f0e-2d9b4c1d7e01',
  offer: {
    id: '7b1e4a38-2f43-4f0b-8a4b-6a8b2b0e9c11',
    name: 'Nursing "BSN"',
    offer_type: 'shared',
    is_exclusive: false,
    tcpa_text: 'I agree…',
  },
  school: { name: 'Lakeside', logo_url: null },
  programs: [{ value: 'bsn', label: 'BSN', payout: 12.5 }],
  payout: 12.5,
  form_fields: [
    { name: 'grad_year', label: 'Graduation year', type: 'select', required: true, options: [{ value: '2026', label: '2026' }] },
  ],
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
    const a = newResult({
      resultId: 'a1',
      entry: entry('a1', '2026-11-26T10:00:00.000Z'),
      expiresAt: new Date('2026-11-26T10:00:00.000Z'),
      partnerData: null,
    });
    const b = newResult({
      resultId: 'b2',
      entry: entry('b2', '2026-11-26T11:00:00.000Z'),
      expiresAt: new Date('2026-11-26T11:00:00.000Z'),
      partnerData: null,
    });
    expect(a.template).toEqual(b.template);
  });

  it('name a template by the first 128 bits of its SHA-256, as a uuid', () => {
    // sha256("{}") = 44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a
    expect(templateDigest('{}')).toBe('44136fa3-55b3-678a-1146-ad16f7e8649e');
  });

  it('rebuild an entry whose template shows nothing else', () => {
    expect(JSON.parse(entryText('x', '{}', new Date(0)))).toEqual({ svc_result_id: 'x', expires_at: '1970-01-01T00:00:00.000Z' });
  });

  describe('of own offers (made once per offer snapshot and programs)', () => {
    /** Lakeside's exclusive "Nursing \"BSN\"" (BSN and MSN, one required question, 10 paid and 12.5 for MSN) on a campaign of its own. */
    const lakeside = (over: Partial<CampaignOffer> = {}): CampaignOffer =>
      campaignOffer({
        campaignId: randomUUID(),
        name: 'Nursing "BSN"',
        schoolId: randomUUID(),
        schoolName: 'Lakeside',
        offerType: 'exclusive',
        tcpaText: 'I agree…',
        resultTtlSeconds: 600,
        programs: [
          { value: 'bsn', label: 'BSN', eligibility: {} },
          { value: 'msn', label: 'MSN', eligibility: {} },
        ],
        formFields: [
          { name: 'grad_year', label: 'Graduation year', type: 'select', required: true, options: [{ value: '2026', label: '2026' }] },
        ],
        payouts: payoutTerms(10, { msn: 12.5 }),
        ...over,
      });
    const at = (iso: string) => new Date(iso);

    it('share the template of an earlier result of the same offer and programs, and still show each its own id and expiry', () => {
      const o = lakeside();
      const first = ownResult(o, ['bsn', 'msn'], at('2026-11-26T10:00:00.000Z'));
      const later = ownResult(o, ['bsn', 'msn'], at('2026-11-26T10:00:07.250Z'));
      const a = newResult(first);
      const b = newResult(later);
      expect(b.template).toBe(a.template);
      expect(a.entryJson.toString('utf8')).toBe(JSON.stringify(first.entry));
      expect(b.entryJson.toString('utf8')).toBe(JSON.stringify(later.entry));
      expect(b.template).toEqual(templateOf(later.entry));
      expect(b.offerId).toBe(o.offerId);
      expect(b.template.payout).toBe('12.5');
    });

    it('make another template for other programs, and for a changed offer (a new catalog snapshot)', () => {
      const o = lakeside();
      const both = newResult(ownResult(o, ['bsn', 'msn'], at('2026-11-26T10:00:00.000Z')));
      const one = ownResult(o, ['bsn'], at('2026-11-26T10:00:00.000Z'));
      expect(newResult(one).template).toEqual(templateOf(one.entry));
      expect(newResult(one).template.digest).not.toBe(both.template.digest);
      const renamed = ownResult({ ...o, name: 'Nursing BSN, online' }, ['bsn', 'msn'], at('2026-11-26T10:00:00.000Z'));
      const r = newResult(renamed);
      expect(r.template.digest).not.toBe(both.template.digest);
      expect(r.entryJson.toString('utf8')).toBe(JSON.stringify(renamed.entry));
    });

    it("never reuse a partner result's template: it shows what the partner answered", () => {
      const p = { id: randomUUID(), name: 'P', adapter: 'sandbox', baseUrl: 'http://127.0.0.1:9/p', timeoutMs: 1000 };
      const o = lakeside({ source: 'partner', partner: p, externalId: 'x1', programs: [] });
      const answer = (label: string) => ({
        offerId: o.offerId,
        partnerResultId: randomUUID(),
        externalId: 'x1',
        programs: [{ value: 'bsn', label }],
        formFields: [],
        tcpaText: null,
        school: null,
        expiresInSeconds: null,
      });
      const first = partnerResult(o, answer('BSN'), at('2026-11-26T10:00:00.000Z'));
      const second = partnerResult(o, answer('BSN (online)'), at('2026-11-26T10:00:00.000Z'));
      expect(first.shape).toBeNull();
      expect(newResult(second).template).toEqual(templateOf(second.entry));
      expect(newResult(second).template.digest).not.toBe(newResult(first).template.digest);
    });
  });
});
