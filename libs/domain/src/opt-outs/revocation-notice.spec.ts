import { revocationNoticeDocument, revocationTarget } from './revocation-notice';

describe('revocation channels', () => {
  it("a sandbox school's notices go beside its leads, with the leads URL's query and the delivery's headers", () => {
    expect(
      revocationTarget({
        kind: 'school',
        delivery: {
          adapter: 'sandbox',
          url: 'http://sandbox:4100/schools/northfield/leads?outcome=accept&delay_ms=5',
          headers: { 'X-A': 'b' },
        },
      }),
    ).toEqual({ url: 'http://sandbox:4100/schools/northfield/revocations?outcome=accept&delay_ms=5', headers: { 'X-A': 'b' } });
    expect(revocationTarget({ kind: 'school', delivery: { adapter: 'sandbox', url: 'http://school.example/intake' } })).toBeNull();
  });

  it("a json school's go to its revocation_url, or wait for an operator", () => {
    const json = { adapter: 'json' as const, url: 'https://api.school.example/leads', headers: { Authorization: 'Bearer ${env:T}' } };
    expect(revocationTarget({ kind: 'school', delivery: { ...json, revocation_url: 'https://api.school.example/optouts' } })).toEqual({
      url: 'https://api.school.example/optouts',
      headers: { Authorization: 'Bearer ${env:T}' },
    });
    expect(revocationTarget({ kind: 'school', delivery: json })).toBeNull();
    expect(revocationTarget({ kind: 'school', delivery: null })).toBeNull();
  });

  it("a sandbox partner's go under its base URL; a json partner's wait for an operator", () => {
    expect(
      revocationTarget({ kind: 'partner', adapter: 'sandbox', baseUrl: 'http://sandbox:4100/partners/alpha?match=all', settings: null }),
    ).toEqual({
      url: 'http://sandbox:4100/partners/alpha/revocations?match=all',
      headers: undefined,
    });
    expect(revocationTarget({ kind: 'partner', adapter: 'json', baseUrl: 'https://partner.example/api', settings: {} })).toBeNull();
  });

  it('a notice names the lead, the request and the deadline, and nothing of the person', () => {
    expect(
      revocationNoticeDocument({
        id: 'n1',
        leadId: 'l1',
        offerId: 'o1',
        receivedAt: new Date('2026-11-26T12:00:00Z'),
        dueAt: new Date('2026-12-10T12:00:00Z'),
      }),
    ).toEqual({
      type: 'consent_revoked',
      notice_id: 'n1',
      lead_id: 'l1',
      offer_id: 'o1',
      requested_at: '2026-11-26T12:00:00.000Z',
      respond_by: '2026-12-10T12:00:00.000Z',
    });
  });
});
