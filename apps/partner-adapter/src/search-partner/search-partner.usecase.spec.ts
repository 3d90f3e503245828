import { Logger } from '@nestjs/common';
import { MESSAGE_TYPES, PartnerOfferResult, PartnerSearchRequestedV1 } from '@lr/contracts';
import { AmqpConnection, PermanentError } from '@lr/messaging';
import { metricsRegistry } from '@lr/observability';
import { PartnerAdapterRegistry } from '../adapters/adapter-registry';
import type { PartnerAdapter } from '../adapters/partner-adapter';
import { PartnerHttpError, PartnerProtocolError } from '../adapters/partner-errors';
import { PartnerCalls } from '../calls/partner-calls';
import { PartnerCircuitBreakers } from '../calls/circuit-breakers';
import { SearchPartner, partnerAnswerMessageId } from './search-partner.usecase';

Logger.overrideLogger(false);

const RESULT: PartnerOfferResult = {
  offerId: 'o1',
  externalId: 'westlake-001',
  partnerResultId: 'pr_1',
  programs: [{ value: 'it', label: 'IT' }],
  formFields: [],
  tcpaText: null,
  school: null,
  expiresInSeconds: 900,
};

let n = 0;
function request(overrides: Partial<PartnerSearchRequestedV1['partner']> = {}, closesInMs = 45_000): PartnerSearchRequestedV1 {
  n += 1;
  return {
    searchId: `search-${n}`,
    partner: { id: `partner-${n}`, name: `Partner ${n}`, adapter: 'fake', baseUrl: 'http://partner.test', timeoutMs: 1_000, ...overrides },
    offers: [{ offerId: 'o1', externalId: 'westlake-001' }],
    lead: { personal: { email: 'ada@example.com' } },
    tracking: {},
    isTest: false,
    closesAt: new Date(Date.now() + closesInMs).toISOString(),
  };
}

describe('SearchPartner', () => {
  let search: jest.Mock<Promise<PartnerOfferResult[]>, Parameters<PartnerAdapter['search']>>;
  let publish: jest.Mock;
  let breakers: PartnerCircuitBreakers;
  let service: SearchPartner;

  beforeEach(() => {
    search = jest.fn(async (..._args: Parameters<PartnerAdapter['search']>) => [RESULT]);
    publish = jest.fn(async () => 'id');
    const adapter: PartnerAdapter = { search, submit: jest.fn() };
    breakers = new PartnerCircuitBreakers();
    const calls = new PartnerCalls(new PartnerAdapterRegistry({ fake: adapter }), breakers);
    service = new SearchPartner(calls, { publish } as unknown as AmqpConnection);
  });
  afterEach(() => breakers.onModuleDestroy());

  it("answers the partner's results and passes it what the request asked", async () => {
    const msg = request();
    const answer = await service.answer(msg);
    expect(answer).toEqual({ searchId: msg.searchId, partnerId: msg.partner.id, outcome: 'answered', latencyMs: expect.any(Number), results: [RESULT] });
    const [partner, req, signal] = search.mock.calls[0];
    expect(partner).toBe(msg.partner);
    expect(req).toEqual({ searchId: msg.searchId, offers: msg.offers, lead: msg.lead, tracking: msg.tracking, isTest: false });
    expect(signal.aborted).toBe(false);
  });

  it('publishes the answer with a deterministic messageId and the request correlationId', async () => {
    const msg = request();
    const answer = await service.answerAndPublish(msg, 'corr-1');
    expect(publish).toHaveBeenCalledWith(MESSAGE_TYPES.PartnerSearchAnswered, answer, {
      messageId: `partner-answer:${msg.searchId}:${msg.partner.id}`,
      correlationId: 'corr-1',
    });
    expect(partnerAnswerMessageId('s', 'p')).toBe('partner-answer:s:p');
  });

  it('throws when the answer cannot be published (the transport retries the request)', async () => {
    publish.mockRejectedValue(new Error('broker unavailable'));
    await expect(service.answerAndPublish(request(), 'corr-1')).rejects.toThrow('broker unavailable');
  });

  it('answers expired without calling the partner once the search has closed', async () => {
    const answer = await service.answer(request({}, -10));
    expect(answer).toMatchObject({ outcome: 'expired', results: [], detail: expect.stringContaining('closed') });
    expect(search).not.toHaveBeenCalled();
  });

  it('answers an empty offer list without calling the partner', async () => {
    const msg = { ...request(), offers: [] };
    await expect(service.answer(msg)).resolves.toMatchObject({ outcome: 'answered', results: [] });
    expect(search).not.toHaveBeenCalled();
  });

  it('sends a request whose closesAt is not a time to the dead-letter queue', async () => {
    await expect(service.answer({ ...request(), closesAt: 'later' })).rejects.toBeInstanceOf(PermanentError);
  });

  it('answers error with a detail for an adapter name it does not know', async () => {
    const answer = await service.answer(request({ adapter: 'carrier-pigeon' }));
    expect(answer).toMatchObject({ outcome: 'error', results: [], detail: 'PARTNER_ADAPTER_UNKNOWN: no partner adapter named "carrier-pigeon"' });
  });

  it.each([
    [new PartnerHttpError(500, '{"error":"Internal Server Error"}'), 'PARTNER_HTTP_ERROR: HTTP 500: {"error":"Internal Server Error"}'],
    [new PartnerProtocolError('the search answer has no results array'), 'PARTNER_PROTOCOL_ERROR: the search answer has no results array'],
    [new TypeError('x is undefined'), 'unexpected: x is undefined'],
  ])('answers error with a detail when the call fails: %s', async (error, detail) => {
    search.mockRejectedValue(error);
    await expect(service.answer(request())).resolves.toMatchObject({ outcome: 'error', results: [], detail });
  });

  it('answers timeout at the deadline, cut to the time the search has left', async () => {
    search.mockImplementation(() => new Promise(() => undefined)); // ignores its signal, even
    const started = Date.now();
    const answer = await service.answer(request({ timeoutMs: 5_000 }, 150));
    expect(answer).toMatchObject({ outcome: 'timeout', results: [], detail: expect.stringMatching(/within 1[0-5]\d ms/) });
    expect(Date.now() - started).toBeLessThan(500);
    expect(answer.latencyMs).toBeGreaterThanOrEqual(100);
  });

  it('answers circuit_open without calling a partner whose breaker opened', async () => {
    search.mockRejectedValue(new PartnerHttpError(500, ''));
    const msg = request();
    for (let i = 0; i < 5; i++) await service.answer(msg);
    search.mockClear();
    await expect(service.answer(msg)).resolves.toMatchObject({ outcome: 'circuit_open', results: [] });
    expect(search).not.toHaveBeenCalled();
  });

  it('counts calls and their duration by partner and outcome', async () => {
    const msg = request();
    await service.answer(msg);
    const calls = await metricsRegistry.getSingleMetric('partner_calls_total')?.get();
    expect(calls?.values).toContainEqual({ labels: { partner: msg.partner.name, operation: 'search', outcome: 'answered' }, value: 1 });
    const duration = await metricsRegistry.getSingleMetric('partner_search_duration_seconds')?.get();
    expect(duration?.values).toContainEqual(
      expect.objectContaining({ labels: { partner: msg.partner.name, outcome: 'answered' }, metricName: 'partner_search_duration_seconds_count', value: 1 }),
    );
  });
});
