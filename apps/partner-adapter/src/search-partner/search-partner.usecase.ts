import { Injectable, Logger } from '@nestjs/common';
import { MESSAGE_TYPES, PartnerCallOutcome, PartnerOfferResult, PartnerSearchAnsweredV1, PartnerSearchRequestedV1 } from '@lr/contracts';
import { AmqpConnection, PermanentError } from '@lr/messaging';
import { describeCallFailure } from '../calls/call-failure';
import { callDeadlineMs } from '../calls/deadline';
import { PartnerCalls } from '../calls/partner-calls';
import { partnerMetrics } from '../partner-metrics';

/** The answer's messageId: the same for every redelivery, so the orchestrator keeps one answer per partner and search. */
export function partnerAnswerMessageId(searchId: string, partnerId: string): string {
  return `partner-answer:${searchId}:${partnerId}`;
}

interface Ended {
  outcome: PartnerCallOutcome;
  results: PartnerOfferResult[];
  detail?: string;
}

/**
 * Asks one partner network about its offers for one search and answers the
 * orchestrator. The partner is asked again on a redelivery (a search is
 * read-only at the partner); the answer's deterministic messageId dedupes.
 */
@Injectable()
export class SearchPartner {
  private readonly log = new Logger(SearchPartner.name);

  constructor(
    private readonly calls: PartnerCalls,
    private readonly amqp: AmqpConnection,
  ) {}

  /** Answers the request and publishes the answer; a publish failure throws (the transport retries the request). */
  async answerAndPublish(msg: PartnerSearchRequestedV1, correlationId: string): Promise<PartnerSearchAnsweredV1> {
    const answer = await this.answer(msg);
    await this.amqp.publish(MESSAGE_TYPES.PartnerSearchAnswered, answer, {
      messageId: partnerAnswerMessageId(msg.searchId, msg.partner.id),
      correlationId,
    });
    return answer;
  }

  /**
   * The partner's answer, or how the call failed: never throws for a partner's
   * failure. Only a request with an unreadable closesAt throws (PermanentError).
   */
  async answer(msg: PartnerSearchRequestedV1): Promise<PartnerSearchAnsweredV1> {
    const started = performance.now();
    const ended = await this.search(msg);
    const latencyMs = Math.round(performance.now() - started);
    this.record(msg, ended, latencyMs);
    return {
      searchId: msg.searchId,
      ...(msg.campaignId ? { campaignId: msg.campaignId } : {}),
      partnerId: msg.partner.id,
      outcome: ended.outcome,
      latencyMs,
      results: ended.results,
      ...(ended.detail === undefined ? {} : { detail: ended.detail }),
    };
  }

  private async search(msg: PartnerSearchRequestedV1): Promise<Ended> {
    const { partner } = msg;
    let deadlineMs: number;
    try {
      deadlineMs = callDeadlineMs(partner.timeoutMs, msg.closesAt, Date.now());
    } catch (e) {
      throw new PermanentError(`partner search request ${msg.searchId}: ${(e as Error).message}`);
    }
    if (deadlineMs <= 0) return { outcome: 'expired', results: [], detail: `the search closed at ${msg.closesAt}, before the partner was asked` };
    if (msg.offers.length === 0) return { outcome: 'answered', results: [] };
    try {
      const request = { searchId: msg.searchId, offers: msg.offers, lead: msg.lead, tracking: msg.tracking, isTest: msg.isTest };
      const results = await this.calls.run(partner, deadlineMs, (adapter, signal) => adapter.search(partner, request, signal));
      return { outcome: 'answered', results };
    } catch (e) {
      const failure = describeCallFailure(e);
      if (failure.unexpected) {
        this.log.error({ msg: 'partner search failed unexpectedly', partner: partner.name, search_id: msg.searchId, err: (e as Error)?.stack ?? String(e) });
      }
      return { outcome: failure.outcome, results: [], detail: failure.detail };
    }
  }

  /** Metrics and one log line; the lead never reaches a log. */
  private record(msg: PartnerSearchRequestedV1, ended: Ended, latencyMs: number): void {
    const partner = msg.partner.name;
    partnerMetrics.searchDuration.observe({ partner, outcome: ended.outcome }, latencyMs / 1000);
    partnerMetrics.calls.inc({ partner, operation: 'search', outcome: ended.outcome });
    const line = {
      msg: 'partner search answered',
      partner,
      partner_id: msg.partner.id,
      search_id: msg.searchId,
      outcome: ended.outcome,
      latency_ms: latencyMs,
      offers: msg.offers.length,
      results: ended.results.length,
      ...(ended.detail === undefined ? {} : { detail: ended.detail }),
    };
    if (ended.outcome === 'timeout' || ended.outcome === 'error' || ended.outcome === 'expired') this.log.warn(line);
    else this.log.debug(line);
  }
}
