import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { MESSAGE_TYPES } from '@lr/contracts';
import type { PartnerAnswer, PartnerCallOutcome, PartnerCallRequest, PartnerOfferResult, PartnerRef } from '@lr/contracts';
import type { PartnerSearchAnsweredV2, PartnerSearchRequestedV2 } from '@lr/contracts';
import { searchFieldsOf, withContactAtSearch, type PartnerSearchView } from '@lr/domain';
import { AmqpConnection, PermanentError } from '@lr/messaging';
import { ContactSealer } from '@lr/persistence';
import { describeCallFailure } from '../calls/call-failure';
import { callDeadlines } from '../calls/deadline';
import { PartnerCalls } from '../calls/partner-calls';
import { partnerMetrics } from '../partner-metrics';
import { AnswerBatches } from './answer-batches';

/**
 * An answer message's messageId: its search and the partners it carries, in
 * the order it carries them, so a copy published again for a redelivered
 * request has the id of the first whenever it groups the same partners. An
 * AMQP message id is at most 255 characters: beyond 4 partners (a search
 * whose partners all answer together), the partners' part is their SHA-256,
 * as deterministic.
 */
export function partnerAnswerMessageId(searchId: string, ...partnerIds: string[]): string {
  const partners = partnerIds.join('+');
  const id = `partner-answer:${searchId}:${partners}`;
  return id.length <= MESSAGE_ID_MAX ? id : `partner-answer:${searchId}:sha256-${createHash('sha256').update(partners).digest('hex')}`;
}

/** The longest AMQP message id (a short string). */
const MESSAGE_ID_MAX = 255;

/** What a partner is asked about a search. */
type SearchOf = Pick<PartnerSearchRequestedV2, 'searchId' | 'isTest' | 'closesAt'>;

interface Ended {
  outcome: PartnerCallOutcome;
  results: PartnerOfferResult[];
  detail?: string;
}

/**
 * Asks the partner networks of a search about their offers and answers the
 * orchestrator. A partner is asked again on a redelivery (a search is
 * read-only at the partner): the orchestrator keeps the first answer per
 * search and partner, and ignores the others.
 */
@Injectable()
export class SearchPartner {
  private readonly log = new Logger(SearchPartner.name);

  constructor(
    private readonly calls: PartnerCalls,
    private readonly amqp: AmqpConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sealer: ContactSealer,
  ) {}

  /**
   * Calls every partner of the request at once and publishes each answer as
   * its call ends (AnswerBatches groups the ones that end together). Resolves
   * once every call ended and every answer was published. Throws a
   * PermanentError before calling anyone when closesAt is unreadable, and the
   * first publish failure once the other answers were sent.
   */
  async answerAllAndPublish(msg: PartnerSearchRequestedV2, correlationId: string): Promise<void> {
    const taken = performance.now();
    const deadlineOf = deadlinesOf(msg);
    const partners = this.onePerPartner(msg);
    const batches = new AnswerBatches(
      (answers) => {
        const payload: PartnerSearchAnsweredV2 = { searchId: msg.searchId, campaignId: msg.campaignId, answers };
        return this.amqp.publish(MESSAGE_TYPES.PartnerSearchAnswered, payload, {
          messageId: partnerAnswerMessageId(msg.searchId, ...answers.map((a) => a.partnerId)),
          correlationId,
        });
      },
      partners.length,
      this.config.search.partnerAnswerGatherMs,
    );
    // allSettled: a call that failed for a reason of ours (a bug) must not leave the others unpublished behind a retry.
    const ended = await Promise.allSettled(
      partners.map((call) => this.callPartner(msg, call, deadlineOf(call.partner), taken).then((answer) => batches.add(answer))),
    );
    await batches.settled();
    const bug = ended.find((e): e is PromiseRejectedResult => e.status === 'rejected');
    if (bug) throw bug.reason;
  }

  /** One partner's call: never throws for the partner's failure. */
  private async callPartner(search: SearchOf, call: PartnerCallRequest, deadlineMs: number, taken: number): Promise<PartnerAnswer> {
    const ended = await this.search(search, call, deadlineMs);
    const latencyMs = Math.round(performance.now() - taken);
    this.record(search, call, ended, latencyMs);
    return {
      partnerId: call.partner.id,
      outcome: ended.outcome,
      latencyMs,
      results: ended.results,
      ...(ended.detail === undefined ? {} : { detail: ended.detail }),
    };
  }

  /**
   * The partner's own view of the search, as the orchestrator made it; a
   * partner configured for contact data at search gets those fields added
   * here, from the search's sealed part opened at the moment of the call. A
   * request without a view (an older orchestrator's) sends nothing of the lead.
   */
  private async viewOf(call: PartnerCallRequest): Promise<PartnerSearchView> {
    const view = { lead: call.lead ?? {}, tracking: call.tracking ?? {} };
    if (!call.contact) return view;
    const whole = await this.sealer.openRecord({ lead: {}, tracking: {}, consumerIp: '', ipSource: 'consumer' }, call.contact);
    return withContactAtSearch(view, whole, searchFieldsOf(call.partner.settings), new Date());
  }

  private async search(search: SearchOf, call: PartnerCallRequest, deadlineMs: number): Promise<Ended> {
    const { partner, offers } = call;
    if (deadlineMs <= 0)
      return { outcome: 'expired', results: [], detail: `the search closed at ${search.closesAt}, before the partner was asked` };
    if (offers.length === 0) return { outcome: 'answered', results: [] };
    try {
      const view = await this.viewOf(call);
      const request = { searchId: search.searchId, offers, lead: view.lead, tracking: view.tracking, isTest: search.isTest };
      const results = await this.calls.run(partner, deadlineMs, (adapter, signal) => adapter.search(partner, request, signal));
      return { outcome: 'answered', results };
    } catch (e) {
      const failure = describeCallFailure(e);
      if (failure.unexpected) {
        this.log.error({
          msg: 'partner search failed unexpectedly',
          partner: partner.name,
          search_id: search.searchId,
          err: (e as Error)?.stack ?? String(e),
        });
      }
      return { outcome: failure.outcome, results: [], detail: failure.detail };
    }
  }

  /**
   * A partner listed twice is asked once (its first listing): asking it twice
   * would cost the partner a call and give the orchestrator two answers for one call.
   */
  private onePerPartner(msg: PartnerSearchRequestedV2): PartnerCallRequest[] {
    const seen = new Set<string>();
    return msg.partners.filter(({ partner }) => {
      if (!seen.has(partner.id)) return seen.add(partner.id);
      this.log.warn({
        msg: 'partner listed twice in a search request: asked once',
        partner: partner.name,
        partner_id: partner.id,
        search_id: msg.searchId,
      });
      return false;
    });
  }

  /** Metrics and one log line; the lead never reaches a log. */
  private record(search: SearchOf, { partner, offers }: PartnerCallRequest, ended: Ended, latencyMs: number): void {
    partnerMetrics.searchDuration.observe({ partner: partner.name, outcome: ended.outcome }, latencyMs / 1000);
    partnerMetrics.calls.inc({ partner: partner.name, operation: 'search', outcome: ended.outcome });
    const line = {
      msg: 'partner search answered',
      partner: partner.name,
      partner_id: partner.id,
      search_id: search.searchId,
      outcome: ended.outcome,
      latency_ms: latencyMs,
      offers: offers.length,
      results: ended.results.length,
      ...(ended.detail === undefined ? {} : { detail: ended.detail }),
    };
    if (ended.outcome === 'timeout' || ended.outcome === 'error' || ended.outcome === 'expired') this.log.warn(line);
    else this.log.debug(line);
  }
}

/**
 * Each partner's deadline, all measured from when the request was taken. A
 * closesAt that is not a time can never be read on a retry either: a
 * PermanentError sends the request to the dead-letter queue before anyone is called.
 */
function deadlinesOf(search: SearchOf): (partner: PartnerRef) => number {
  try {
    const deadlineMs = callDeadlines(search.closesAt, Date.now());
    return (partner) => deadlineMs(partner.timeoutMs);
  } catch (e) {
    throw new PermanentError(`partner search request ${search.searchId}: ${(e as Error).message}`);
  }
}
