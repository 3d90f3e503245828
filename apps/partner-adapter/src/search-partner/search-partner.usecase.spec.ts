import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { MESSAGE_TYPES } from '@lr/contracts';
import type { PartnerAnswer, PartnerCallRequest, PartnerOfferResult, PartnerRef, PartnerSearchAnsweredV2 } from '@lr/contracts';
import type { PartnerSearchRequestedV2 } from '@lr/contracts';
import { AmqpConnection, PermanentError } from '@lr/messaging';
import { metricsRegistry } from '@lr/observability';
import { PartnerAdapterRegistry } from '../adapters/adapter-registry';
import type { PartnerAdapter } from '../adapters/partner-adapter';
import { PartnerHttpError, PartnerProtocolError } from '../adapters/partner-errors';
import { PartnerCalls } from '../calls/partner-calls';
import { PartnerCircuitBreakers } from '../calls/circuit-breakers';
import type { AppConfig } from '@lr/config';
import { SearchPartner, partnerAnswerMessageId } from './search-partner.usecase';

/** The config the use case reads: how long an answer waits for the search's other partners (0: the tests of batching without a wait). */
const configWith = (partnerAnswerGatherMs: number) => ({ search: { partnerAnswerGatherMs } }) as AppConfig;

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
function partnerRef(overrides: Partial<PartnerRef> = {}): PartnerRef {
  n += 1;
  return { id: `partner-${n}`, name: `Partner ${n}`, adapter: 'fake', baseUrl: 'http://partner.test', timeoutMs: 1_000, ...overrides };
}

/** A search that asks one partner network. */
type OnePartnerSearch = Omit<PartnerSearchRequestedV2, 'partners'> & PartnerCallRequest;

function request(overrides: Partial<PartnerRef> = {}, closesInMs = 45_000): OnePartnerSearch {
  const partner = partnerRef(overrides);
  return {
    searchId: `search-${n}`,
    campaignId: 'campaign-1',
    partner,
    offers: [{ offerId: 'o1', externalId: 'westlake-001' }],
    lead: { address: { state: 'TX' }, hashed: { email: 'a'.repeat(64) } },
    tracking: {},
    isTest: false,
    closesAt: new Date(Date.now() + closesInMs).toISOString(),
  };
}

/** The same search as a v2 request: one message naming every partner. */
function requestAll(
  partners: Array<PartnerRef | PartnerCallRequest>,
  closesInMs = 45_000,
  lead: PartnerCallRequest['lead'] = { address: { state: 'TX' } },
): PartnerSearchRequestedV2 {
  n += 1;
  return {
    searchId: `search-${n}`,
    campaignId: 'campaign-1',
    partners: partners.map((p) =>
      'partner' in p ? p : { partner: p, offers: [{ offerId: 'o1', externalId: 'westlake-001' }], lead, tracking: {} },
    ),
    isTest: false,
    closesAt: new Date(Date.now() + closesInMs).toISOString(),
  };
}

function asV2(msg: OnePartnerSearch): PartnerSearchRequestedV2 {
  const { partner, offers, lead, tracking, ...search } = msg;
  return { ...search, partners: [{ partner, offers, lead, tracking }] };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}
function deferred<T>(): Deferred<T> {
  const d = {} as Deferred<T>;
  d.promise = new Promise<T>((resolve, reject) => Object.assign(d, { resolve, reject }));
  return d;
}

/** A few event-loop turns: what a call's end and a publish need to run their course, with no time passing. */
async function turns(count = 5): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('SearchPartner', () => {
  let search: jest.Mock<Promise<PartnerOfferResult[]>, Parameters<PartnerAdapter['search']>>;
  let publish: jest.Mock<Promise<string>, [string, unknown, { messageId: string; correlationId: string }]>;
  let breakers: PartnerCircuitBreakers;
  let service: SearchPartner;

  beforeEach(() => {
    search = jest.fn(async (..._args: Parameters<PartnerAdapter['search']>) => [RESULT]);
    publish = jest.fn(async (..._args: [string, unknown, { messageId: string; correlationId: string }]) => 'id');
    const adapter: PartnerAdapter = { search, submit: jest.fn() };
    breakers = new PartnerCircuitBreakers();
    const calls = new PartnerCalls(new PartnerAdapterRegistry({ fake: adapter }), breakers);
    service = new SearchPartner(calls, { publish } as unknown as AmqpConnection, configWith(0), undefined as never);
  });
  afterEach(() => breakers.onModuleDestroy());

  const published = () => publish.mock.calls.map(([type, payload, opts]) => ({ type, payload: payload as PartnerSearchAnsweredV2, opts }));

  describe('one partner, asked by a request', () => {
    /** The partner's answer, as the one answer of the one message published. */
    const answer = async (msg: OnePartnerSearch): Promise<PartnerAnswer & { searchId: string }> => {
      publish.mockClear();
      await service.answerAllAndPublish(asV2(msg), 'corr-1');
      expect(publish).toHaveBeenCalledTimes(1);
      const { searchId, answers } = published()[0].payload;
      expect(answers).toHaveLength(1);
      return { searchId, ...answers[0] };
    };

    it("answers the partner's results and passes it what the request asked", async () => {
      const msg = request();
      await expect(answer(msg)).resolves.toEqual({
        searchId: msg.searchId,
        partnerId: msg.partner.id,
        outcome: 'answered',
        latencyMs: expect.any(Number),
        results: [RESULT],
      });
      const [partner, req, signal] = search.mock.calls[0];
      expect(partner).toBe(msg.partner);
      expect(req).toEqual({ searchId: msg.searchId, offers: msg.offers, lead: msg.lead, tracking: msg.tracking, isTest: false });
      expect(signal.aborted).toBe(false);
    });

    it('answers expired without calling the partner once the search has closed', async () => {
      const answered = await answer(request({}, -10));
      expect(answered).toMatchObject({ outcome: 'expired', results: [], detail: expect.stringContaining('closed') });
      expect(search).not.toHaveBeenCalled();
    });

    it('answers an empty offer list without calling the partner', async () => {
      const msg = { ...request(), offers: [] };
      await expect(answer(msg)).resolves.toMatchObject({ outcome: 'answered', results: [] });
      expect(search).not.toHaveBeenCalled();
    });

    it('sends a request whose closesAt is not a time to the dead-letter queue, before the partner is called', async () => {
      await expect(answer({ ...request(), closesAt: 'later' })).rejects.toBeInstanceOf(PermanentError);
      expect(search).not.toHaveBeenCalled();
    });

    it('answers error with a detail for an adapter name it does not know', async () => {
      const answered = await answer(request({ adapter: 'carrier-pigeon' }));
      expect(answered).toMatchObject({
        outcome: 'error',
        results: [],
        detail: 'PARTNER_ADAPTER_UNKNOWN: no partner adapter named "carrier-pigeon"',
      });
    });

    it.each([
      [new PartnerHttpError(500, '{"error":"Internal Server Error"}'), 'PARTNER_HTTP_ERROR: HTTP 500: {"error":"Internal Server Error"}'],
      [
        new PartnerProtocolError('the search answer has no results array'),
        'PARTNER_PROTOCOL_ERROR: the search answer has no results array',
      ],
      [new TypeError('x is undefined'), 'unexpected: x is undefined'],
    ])('answers error with a detail when the call fails: %s', async (error, detail) => {
      search.mockRejectedValue(error);
      await expect(answer(request())).resolves.toMatchObject({ outcome: 'error', results: [], detail });
    });

    it('answers timeout at the deadline, cut to the time the search has left', async () => {
      search.mockImplementation(() => new Promise(() => undefined)); // ignores its signal, even
      const started = Date.now();
      const answered = await answer(request({ timeoutMs: 5_000 }, 150));
      expect(answered).toMatchObject({ outcome: 'timeout', results: [], detail: expect.stringMatching(/within 1[0-5]\d ms/) });
      expect(Date.now() - started).toBeLessThan(500);
      expect(answered.latencyMs).toBeGreaterThanOrEqual(100);
    });

    it('answers circuit_open without calling a partner whose breaker opened', async () => {
      search.mockRejectedValue(new PartnerHttpError(500, ''));
      const msg = request();
      for (let i = 0; i < 5; i++) await answer(msg);
      search.mockClear();
      await expect(answer(msg)).resolves.toMatchObject({ outcome: 'circuit_open', results: [] });
      expect(search).not.toHaveBeenCalled();
    });

    it('counts calls and their duration by partner and outcome', async () => {
      const msg = request();
      await answer(msg);
      const calls = await metricsRegistry.getSingleMetric('partner_calls_total')?.get();
      expect(calls?.values).toContainEqual({ labels: { partner: msg.partner.name, operation: 'search', outcome: 'answered' }, value: 1 });
      const duration = await metricsRegistry.getSingleMetric('partner_search_duration_seconds')?.get();
      expect(duration?.values).toContainEqual(
        expect.objectContaining({
          labels: { partner: msg.partner.name, outcome: 'answered' },
          metricName: 'partner_search_duration_seconds_count',
          value: 1,
        }),
      );
    });
  });

  describe('a request for every partner of a search', () => {
    /** Each partner's call ends when the test says. */
    function gatedCalls() {
      const gates = new Map<string, Deferred<PartnerOfferResult[]>>();
      const gate = (id: string) => gates.get(id) ?? gates.set(id, deferred()).get(id)!;
      search.mockImplementation((partner) => gate(partner.id).promise);
      return { end: (...partners: PartnerRef[]) => partners.forEach((p) => gate(p.id).resolve([RESULT])) };
    }

    /** Each publish is confirmed (or fails) when the test says. */
    function gatedConfirms() {
      const confirms: Array<Deferred<string>> = [];
      publish.mockImplementation(() => {
        const d = deferred<string>();
        confirms.push(d);
        return d.promise;
      });
      return confirms;
    }

    const answeredBy = (i: number) => published()[i].payload.answers.map((a) => a.partnerId);

    /** Tracks the handling's promise without letting a rejection go unobserved. */
    function handle(msg: PartnerSearchRequestedV2) {
      const state = { settled: false };
      const done = service.answerAllAndPublish(msg, 'corr-1').finally(() => (state.settled = true));
      done.catch(() => undefined);
      return { done, state };
    }

    it('publishes one answer message under the v2 type, with the campaign, a deterministic messageId and the request correlationId', async () => {
      const a = partnerRef();
      const msg = requestAll([a]);
      await service.answerAllAndPublish(msg, 'corr-1');
      expect(publish).toHaveBeenCalledTimes(1);
      expect(publish).toHaveBeenCalledWith(
        MESSAGE_TYPES.PartnerSearchAnswered,
        {
          searchId: msg.searchId,
          campaignId: 'campaign-1',
          answers: [{ partnerId: a.id, outcome: 'answered', latencyMs: expect.any(Number), results: [RESULT] }],
        },
        { messageId: `partner-answer:${msg.searchId}:${a.id}`, correlationId: 'corr-1' },
      );
      expect(partnerAnswerMessageId('s', 'p', 'q')).toBe('partner-answer:s:p+q');
      // Many partners answering together: still one deterministic id, within AMQP's 255 characters.
      const many = Array.from({ length: 7 }, () => randomUUID());
      const long = partnerAnswerMessageId(randomUUID(), ...many);
      expect(long.length).toBeLessThanOrEqual(255);
      expect(partnerAnswerMessageId(long.split(':')[1], ...many)).toBe(long);
      expect(partnerAnswerMessageId(long.split(':')[1], ...many.reverse())).not.toBe(long);
    });

    it('calls every partner at once and puts the answers of partners that end together in one message', async () => {
      const { end } = gatedCalls();
      const [a, b] = [partnerRef(), partnerRef()];
      const msg = requestAll([a, b]);
      const { done } = handle(msg);
      await turns();
      expect(search).toHaveBeenCalledTimes(2); // both asked before either answered
      end(b, a);
      await done;
      expect(publish).toHaveBeenCalledTimes(1);
      expect(published()[0]).toEqual({
        type: MESSAGE_TYPES.PartnerSearchAnswered,
        payload: {
          searchId: msg.searchId,
          campaignId: 'campaign-1',
          answers: [
            expect.objectContaining({ partnerId: b.id, outcome: 'answered' }),
            expect.objectContaining({ partnerId: a.id, outcome: 'answered' }),
          ],
        },
        opts: { messageId: `partner-answer:${msg.searchId}:${b.id}+${a.id}`, correlationId: 'corr-1' },
      });
    });

    it("publishes an answer at once, and the ones that end while that message waits for the broker's confirm in the next message", async () => {
      const { end } = gatedCalls();
      const confirms = gatedConfirms();
      const [a, b, c] = [partnerRef(), partnerRef(), partnerRef()];
      const msg = requestAll([a, b, c]);
      const { done, state } = handle(msg);

      end(a);
      await turns();
      expect(answeredBy(0)).toEqual([a.id]);

      end(b);
      await turns();
      end(c);
      await turns();
      expect(publish).toHaveBeenCalledTimes(1); // the first is not confirmed yet

      confirms[0].resolve('id');
      await turns();
      expect(publish).toHaveBeenCalledTimes(2);
      expect(answeredBy(1)).toEqual([b.id, c.id]);
      expect(published()[1].opts.messageId).toBe(`partner-answer:${msg.searchId}:${b.id}+${c.id}`);
      expect(state.settled).toBe(false); // its answer is not confirmed yet

      confirms[1].resolve('id');
      await expect(done).resolves.toBeUndefined();
    });

    it("does not hold the fast partners' answers for a slow one, whose answer is its own later message", async () => {
      const slow = partnerRef({ timeoutMs: 5_000 });
      const [a, b] = [partnerRef(), partnerRef()];
      const slowCall = deferred<PartnerOfferResult[]>();
      search.mockImplementation(async (partner) => (partner.id === slow.id ? slowCall.promise : [RESULT]));
      const msg = requestAll([a, slow, b]);
      const { done, state } = handle(msg);

      await turns();
      expect(publish).toHaveBeenCalledTimes(1);
      expect(answeredBy(0)).toEqual([a.id, b.id]);
      expect(state.settled).toBe(false);

      slowCall.resolve([RESULT]);
      await done;
      expect(publish).toHaveBeenCalledTimes(2);
      expect(answeredBy(1)).toEqual([slow.id]);
      expect(published()[1].opts.messageId).toBe(`partner-answer:${msg.searchId}:${slow.id}`);
    });

    describe('with a gather window (PARTNER_ANSWER_GATHER_MS)', () => {
      const GATHER_MS = 60;
      beforeEach(() => {
        const calls = new PartnerCalls(new PartnerAdapterRegistry({ fake: { search, submit: jest.fn() } }), breakers);
        service = new SearchPartner(calls, { publish } as unknown as AmqpConnection, configWith(GATHER_MS), undefined as never);
      });

      it('an answer waits for the partners still called, and goes with those that end within the window', async () => {
        const { end } = gatedCalls();
        const [a, b] = [partnerRef(), partnerRef()];
        const { done } = handle(requestAll([a, b]));
        end(a);
        await new Promise((r) => setTimeout(r, GATHER_MS / 3));
        expect(publish).not.toHaveBeenCalled();
        end(b);
        await done;
        expect(publish).toHaveBeenCalledTimes(1);
        expect(answeredBy(0)).toEqual([a.id, b.id]);
      });

      it('leaves as soon as every partner answered, without waiting out the window', async () => {
        const { end } = gatedCalls();
        const [a, b] = [partnerRef(), partnerRef()];
        const started = Date.now();
        const { done } = handle(requestAll([a, b]));
        end(a);
        await turns();
        end(b);
        await done;
        expect(answeredBy(0)).toEqual([a.id, b.id]);
        expect(Date.now() - started).toBeLessThan(GATHER_MS);
      });

      it('waits no longer than the window for a slow partner: the answers in hand go, the slow one follows in its own message', async () => {
        const { end } = gatedCalls();
        const [a, slow] = [partnerRef(), partnerRef({ timeoutMs: 5_000 })];
        const { done } = handle(requestAll([a, slow]));
        const ended = Date.now();
        end(a);
        while (publish.mock.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
        const waited = Date.now() - ended;
        expect(waited).toBeGreaterThanOrEqual(GATHER_MS - 5);
        expect(waited).toBeLessThan(GATHER_MS + 500);
        expect(answeredBy(0)).toEqual([a.id]);
        end(slow);
        await done;
        expect(answeredBy(1)).toEqual([slow.id]);
      });
    });

    it('keeps calling and publishing the other partners after a failed publish, then throws it', async () => {
      const { end } = gatedCalls();
      const confirms = gatedConfirms();
      const [a, b] = [partnerRef(), partnerRef()];
      const { done, state } = handle(requestAll([a, b]));

      end(a);
      await turns();
      confirms[0].reject(new Error('broker unavailable'));
      await turns();
      expect(state.settled).toBe(false); // b's call is still running

      end(b);
      await turns();
      expect(answeredBy(1)).toEqual([b.id]);
      confirms[1].resolve('id');
      await expect(done).rejects.toThrow('broker unavailable');
      expect(publish).toHaveBeenCalledTimes(2); // the failed message is left to the request's retry, not sent again
    });

    it('calls a partner listed twice once, and answers it once', async () => {
      const [a, b] = [partnerRef(), partnerRef()];
      const msg = requestAll([a, b, { partner: a, offers: [{ offerId: 'o2', externalId: 'harbor-002' }], lead: {}, tracking: {} }]);
      await service.answerAllAndPublish(msg, 'corr-1');
      expect(search.mock.calls.map(([partner]) => partner.id).sort()).toEqual([a.id, b.id].sort());
      expect(search.mock.calls.find(([partner]) => partner.id === a.id)?.[1].offers).toEqual([
        { offerId: 'o1', externalId: 'westlake-001' },
      ]);
      expect(
        published()
          .flatMap((p) => p.payload.answers.map((x) => x.partnerId))
          .sort(),
      ).toEqual([a.id, b.id].sort());
    });

    it('answers every partner expired, in one message, without calling any once the search has closed', async () => {
      const partners = [partnerRef(), partnerRef(), partnerRef()];
      await service.answerAllAndPublish(requestAll(partners, -10), 'corr-1');
      expect(search).not.toHaveBeenCalled();
      expect(publish).toHaveBeenCalledTimes(1);
      expect(published()[0].payload.answers).toEqual(
        partners.map((p) => ({
          partnerId: p.id,
          outcome: 'expired',
          latencyMs: expect.any(Number),
          results: [],
          detail: expect.stringContaining('closed'),
        })),
      );
    });

    it('sends a request whose closesAt is not a time to the dead-letter queue before any partner is called', async () => {
      await expect(
        service.answerAllAndPublish({ ...requestAll([partnerRef(), partnerRef()]), closesAt: 'later' }, 'corr-1'),
      ).rejects.toBeInstanceOf(PermanentError);
      expect(search).not.toHaveBeenCalled();
      expect(publish).not.toHaveBeenCalled();
    });

    it('gives each partner its own deadline, cut to the time the search has left', async () => {
      search.mockImplementation(() => new Promise(() => undefined));
      const [quick, patient] = [partnerRef({ timeoutMs: 60 }), partnerRef({ timeoutMs: 5_000 })];
      await service.answerAllAndPublish(requestAll([quick, patient], 200), 'corr-1');
      expect(publish).toHaveBeenCalledTimes(2);
      expect(published()[0].payload.answers).toEqual([
        expect.objectContaining({ partnerId: quick.id, outcome: 'timeout', detail: 'the partner did not answer within 60 ms' }),
      ]);
      expect(published()[1].payload.answers).toEqual([
        expect.objectContaining({ partnerId: patient.id, outcome: 'timeout', detail: expect.stringMatching(/within (1\d\d|200) ms/) }),
      ]);
    });

    it('logs one line per partner called, and never the lead', async () => {
      const lines: unknown[] = [];
      const keep = (message: unknown) => void lines.push(message);
      Logger.overrideLogger({ log: keep, error: keep, warn: keep, debug: keep, verbose: keep, fatal: keep });
      try {
        const [a, b] = [partnerRef(), partnerRef()];
        search.mockImplementation(async (partner) => {
          if (partner.id === b.id) throw new PartnerHttpError(500, '');
          return [RESULT];
        });
        const lead = { personal: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '5551234567' } };
        await service.answerAllAndPublish(requestAll([a, b, a], 45_000, lead), 'corr-1');
        const answered = lines.filter((l) => (l as { msg?: string }).msg === 'partner search answered');
        expect(answered).toEqual([
          expect.objectContaining({ partner_id: a.id, outcome: 'answered' }),
          expect.objectContaining({ partner_id: b.id, outcome: 'error' }),
        ]);
        expect(lines).toContainEqual(
          expect.objectContaining({ msg: 'partner listed twice in a search request: asked once', partner_id: a.id }),
        );
        const text = JSON.stringify(lines);
        for (const contact of ['Ada', 'Lovelace', 'ada@example.com', '5551234567']) expect(text).not.toContain(contact);
      } finally {
        Logger.overrideLogger(false);
      }
    });

    it('publishes nothing for a request that names no partner', async () => {
      await expect(service.answerAllAndPublish(requestAll([]), 'corr-1')).resolves.toBeUndefined();
      expect(publish).not.toHaveBeenCalled();
    });
  });
});
