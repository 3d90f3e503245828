import type { PartnerRef } from '@lr/contracts';
import type { MockAgent } from 'undici';
import { mockHttpDispatcher } from '../../../../../test/support/mock-http-dispatcher';
import { SandboxPartnerAdapter, endpoint } from './sandbox-adapter';

const partner: PartnerRef = {
  id: 'p-1',
  name: 'Alpha',
  adapter: 'sandbox',
  baseUrl: 'http://sandbox.test/partners/alpha?delay_ms=5&match=all',
  timeoutMs: 1000,
};

describe('SandboxPartnerAdapter', () => {
  let mock: ReturnType<typeof mockHttpDispatcher>;
  let agent: MockAgent;
  const answer = (body: string) =>
    agent
      .get('http://sandbox.test')
      .intercept({ path: () => true, method: 'POST' })
      .reply(200, body);
  const sent = () => {
    const call = agent.getCallHistory()?.firstCall();
    return { url: call?.fullUrl, headers: call?.headers, body: JSON.parse(call?.body as string) as unknown };
  };

  beforeEach(() => {
    mock = mockHttpDispatcher();
    agent = mock.agent;
  });
  afterEach(() => mock.restore());

  it('builds <base_url path>/<operation>?<base_url query>', () => {
    expect(endpoint(partner.baseUrl, 'search').toString()).toBe('http://sandbox.test/partners/alpha/search?delay_ms=5&match=all');
    expect(endpoint('http://sandbox.test/partners/beta/', 'submit').toString()).toBe('http://sandbox.test/partners/beta/submit');
  });

  it('asks about each external id once, in the protocol shape', async () => {
    answer('{"results":[]}');
    const offers = [
      { offerId: 'o1', externalId: 'westlake-001' },
      { offerId: 'o2', externalId: 'westlake-001' },
      { offerId: 'o3', externalId: 'harbor-002' },
    ];
    const lead = { personal: { email: 'ada@example.com' } };
    await new SandboxPartnerAdapter().search(
      partner,
      { searchId: 's1', offers, lead, tracking: { sub_id: 'x' }, isTest: true },
      new AbortController().signal,
    );
    expect(sent()).toMatchObject({
      url: 'http://sandbox.test/partners/alpha/search?delay_ms=5&match=all',
      body: {
        search_id: 's1',
        offers: [{ external_id: 'westlake-001' }, { external_id: 'harbor-002' }],
        lead,
        tracking: { sub_id: 'x' },
        is_test: true,
      },
    });
  });

  it('submits with the Idempotency-Key header', async () => {
    answer('{"result":"accepted","id":"alpha-0123456789ab"}');
    const outcome = await new SandboxPartnerAdapter().submit(
      partner,
      {
        searchId: 's1',
        partnerResultId: 'pr_1',
        lead: {},
        programId: 'it',
        answers: { hs_grad_year: '2015' },
        idempotencyKey: 'key-1',
        externalId: 'westlake-001',
        tracking: {},
        consumerIp: '203.0.113.9',
        consent: {
          tcpaConsent: true,
          tcpaText: null,
          buttonLabel: null,
          consentedAt: '2026-09-22T08:00:00.000Z',
          ip: '203.0.113.9',
          formCertUrl: null,
          universalLeadCert: null,
        },
        submittedAt: '2026-09-22T08:00:01.000Z',
      },
      new AbortController().signal,
    );
    expect(outcome).toEqual({ kind: 'accepted', partnerLeadId: 'alpha-0123456789ab' });
    expect(sent()).toEqual({
      url: 'http://sandbox.test/partners/alpha/submit?delay_ms=5&match=all',
      headers: expect.objectContaining({ 'idempotency-key': 'key-1' }),
      body: { partner_result_id: 'pr_1', search_id: 's1', lead: {}, program_id: 'it', answers: { hs_grad_year: '2015' } },
    });
  });
});
