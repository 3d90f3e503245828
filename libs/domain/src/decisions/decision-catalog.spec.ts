import { buyerDecision, OK, REFUSAL, storedDecision, SUBMIT } from './decision-catalog';

describe('the decision catalog', () => {
  it('carries the contract’s known reasons (affiliate-api.md, "Submit answer")', () => {
    expect(SUBMIT.accepted).toMatchObject({ http: 200, code: 'ACCEPTED', status: 'accepted', reason: 'Lead accepted', retryable: false });
    expect(SUBMIT.duplicateOffer).toMatchObject({
      code: 'DUPLICATE',
      status: 'rejected',
      reason: 'Duplicate - Offer',
      decidedBy: 'service',
    });
    expect(SUBMIT.duplicateClient).toMatchObject({
      code: 'DUPLICATE',
      status: 'rejected',
      reason: 'Duplicate - Client',
      decidedBy: 'buyer',
    });
    expect(SUBMIT.testLeadHeld).toMatchObject({ code: 'TEST_LEAD_HELD', status: 'held', reason: 'Test lead held' });
    expect(SUBMIT.pending).toMatchObject({ http: 202, code: 'PENDING', status: 'pending' });
    expect(SUBMIT.answerMissing('HS grad year', 'hs_grad_year')).toMatchObject({
      code: 'REQUIRED_FIELD_MISSING',
      status: 'invalid',
      reason: 'Missing HS grad year',
      field: 'hs_grad_year',
    });
  });

  it('says nothing about the cap level (CAP_REACHED)', () => {
    expect(SUBMIT.capReached).toEqual({
      http: 200,
      code: 'CAP_REACHED',
      status: 'rejected',
      reason: 'Cap reached',
      retryable: false,
      decidedBy: 'service',
    });
  });

  it('translates every buyer outcome to a reason ending in " - Client", except an acceptance', () => {
    for (const o of ['duplicate', 'rejected', 'timeout', 'error', 'interrupted'] as const) {
      const d = buyerDecision(o);
      expect(d.reason).toMatch(/ - Client$/);
      expect(d.decidedBy).toBe('buyer');
    }
    expect(buyerDecision('accepted')).toBe(SUBMIT.accepted);
    expect(buyerDecision('timeout')).toBe(buyerDecision('interrupted'));
  });

  it('has the contract’s error table', () => {
    expect(REFUSAL.authRequired).toMatchObject({ http: 401, code: 'AUTH_REQUIRED', status: 'invalid', reason: 'Missing API key' });
    expect(REFUSAL.authInvalid).toMatchObject({ http: 401, code: 'AUTH_INVALID', reason: 'Invalid API key' });
    expect(REFUSAL.forbidden).toMatchObject({ http: 403, code: 'FORBIDDEN', reason: 'Not permitted' });
    expect(REFUSAL.rateLimited(3)).toMatchObject({
      http: 429,
      code: 'RATE_LIMITED',
      status: 'failed',
      reason: 'Too many requests',
      retryable: true,
      retryAfterSeconds: 3,
    });
    expect(REFUSAL.unavailable).toMatchObject({ http: 503, code: 'UNAVAILABLE', retryable: true });
    expect(REFUSAL.searchLeadIdMissing).toMatchObject({ http: 409, code: 'MALFORMED_REQUEST' });
    expect(REFUSAL.resultNotFound).toMatchObject({ http: 404, error: 'search_result_not_found' });
    expect(REFUSAL.resultCampaignMismatch).toMatchObject({ http: 403, error: 'result_campaign_mismatch' });
    expect(REFUSAL.campaignNotActive).toMatchObject({ http: 400, code: 'NOT_FOUND', field: 'svc_campaign_id' });
    expect(OK).toMatchObject({ code: 'OK', status: 'accepted' });
  });

  it('reads a stored decision back as its catalog entry', () => {
    expect(storedDecision({ code: 'DUPLICATE', reason: 'Duplicate - Client', status: 'rejected', decidedBy: 'buyer', field: null })).toBe(
      SUBMIT.duplicateClient,
    );
    expect(storedDecision({ code: null, reason: null, status: 'pending', decidedBy: null, field: null })).toBe(SUBMIT.pending);
    expect(
      storedDecision({
        code: 'REQUIRED_FIELD_MISSING',
        reason: 'Missing HS grad year',
        status: 'invalid',
        decidedBy: 'service',
        field: 'hs_grad_year',
      }),
    ).toEqual(SUBMIT.answerMissing('HS grad year', 'hs_grad_year'));
  });
});
