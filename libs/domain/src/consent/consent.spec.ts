import { SUBMIT } from '../decisions/decision-catalog';
import { checkConsent, consentEvidence, statementShown } from './consent';

describe('checkConsent', () => {
  it('absent is a missing field, false a refusal, true passes', () => {
    expect(checkConsent(null)).toMatchObject({ status: 'invalid', code: 'REQUIRED_FIELD_MISSING' });
    expect(checkConsent(false)).toMatchObject({ status: 'invalid', code: 'CONSENT_REQUIRED' });
    expect(checkConsent(null)).toBe(SUBMIT.consentMissing);
    expect(checkConsent(true)).toBeNull();
  });
});

describe('consentEvidence', () => {
  const base = {
    tcpaConsent: true,
    buttonLabel: 'Request info',
    ip: '203.0.113.7',
    at: '2026-11-25T10:00:00.000Z',
    search: { formCertUrl: 'https://cert/search', universalLeadCert: null },
  };
  it('keeps the statement shown with the result, not the offer’s text of now', () => {
    const shown = { offer: { id: 'o', name: 'n', offer_type: 'shared' as const, is_exclusive: false, tcpa_text: 'as shown' } };
    expect(statementShown(shown, 'changed since')).toBe('as shown');
    expect(statementShown(null, 'offer text')).toBe('offer text');
  });
  it('takes the submit’s certificates before the search’s', () => {
    const e = consentEvidence({ ...base, statement: 'offer text', submitted: { formCertUrl: null, universalLeadCert: 'ulc-1' } });
    expect(e).toEqual({
      tcpaConsent: true,
      statement: 'offer text',
      buttonLabel: 'Request info',
      ip: '203.0.113.7',
      at: base.at,
      formCertUrl: 'https://cert/search',
      universalLeadCert: 'ulc-1',
    });
  });
});
