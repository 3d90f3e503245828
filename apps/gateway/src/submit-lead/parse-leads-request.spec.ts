import { ApiError } from '../http/api-error';
import { parseLeadsRequest } from './parse-leads-request';

const CAMPAIGN = '5d2c8f7e-0000-4000-8000-000000000001';
const AFFILIATE = '5d2c8f7e-0000-4000-8000-000000000002';
const SEARCH = '5d2c8f7e-0000-4000-8000-000000000003';
const OFFER = '5d2c8f7e-0000-4000-8000-000000000004';
const lead = { personal: { email: 'ada@example.com' } };
const tracking = { ip_address: '73.12.44.10' };

function refusal(body: unknown): [number, string, unknown] {
  try {
    parseLeadsRequest(body);
  } catch (e) {
    if (e instanceof ApiError) return [e.httpStatus, e.code, e.extra.field];
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('parseLeadsRequest', () => {
  const base = { svc_campaign_id: CAMPAIGN, svc_affiliate_id: AFFILIATE };

  it('reads a result submit and a direct post', () => {
    expect(parseLeadsRequest({ ...base, svc_result_id: 'r1', search_lead_id: SEARCH.toUpperCase(), hs: '2013' })).toEqual(
      expect.objectContaining({ mode: 'result_submit', resultId: 'r1', searchId: SEARCH, answers: { hs: '2013' } }),
    );
    expect(parseLeadsRequest({ ...base, svc_offer_id: OFFER, lead, tracking })).toEqual(
      expect.objectContaining({ mode: 'direct_post', offerId: OFFER, lead }),
    );
  });

  // A null used to pass the DTO's optional checks and then fail on .toLowerCase() with a 500.
  it('a key sent as null counts as not sent', () => {
    expect(refusal({ ...base, svc_result_id: 'r1', search_lead_id: null })).toEqual([409, 'MALFORMED_REQUEST', 'search_lead_id']);
    expect(refusal({ ...base, svc_offer_id: null, lead, tracking })).toEqual([400, 'REQUIRED_FIELD_MISSING', 'svc_offer_id']);
    expect(refusal({ ...base, svc_offer_id: OFFER, lead: null, tracking })).toEqual([400, 'REQUIRED_FIELD_MISSING', 'lead']);
    expect(refusal({ ...base, svc_result_id: null, search_lead_id: SEARCH })).toEqual([
      400,
      'REQUIRED_FIELD_MISSING',
      'svc_result_id or svc_offer_id',
    ]);
    expect(parseLeadsRequest({ ...base, svc_result_id: 'r1', search_lead_id: SEARCH, lead: null, program_id: null })).toEqual(
      expect.objectContaining({ mode: 'result_submit', lead: undefined }),
    );
  });
});
