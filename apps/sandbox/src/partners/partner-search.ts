import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PendingRequests } from '../shared/pending-requests';
import { ReceivedStore } from '../shared/received-store';
import { recordedHeaders } from '../shared/request-parts';
import { sandboxRequests } from '../shared/sandbox-metrics';
import type { Outcome, SandboxParams } from '../shared/sandbox-params';
import { PartnerSearchResponse, parseSearchRequest } from './partner-protocol';
import { matchedOffers, partnerResult } from './partner-results';

/**
 * A partner's search: records it, waits delay_ms, then answers with results
 * for the matched offers. Only `error` (500) and `timeout` (no answer) change a
 * search; the other outcomes are about submits.
 */
@Injectable()
export class PartnerSearch {
  constructor(
    private readonly received: ReceivedStore,
    private readonly pending: PendingRequests,
  ) {}

  async answer(req: FastifyRequest, reply: FastifyReply, partner: string, params: SandboxParams, outcome: Outcome): Promise<void> {
    const search = parseSearchRequest(req.body);
    this.received.record('partner_search', partner, {
      received_at: new Date().toISOString(),
      request_id: String(req.id),
      outcome,
      delay_ms: params.delayMs,
      headers: recordedHeaders(req),
      body: req.body,
    });
    const held = outcome === 'timeout';
    const end = await this.pending.wait(reply.raw, held ? null : params.delayMs);
    if (end !== 'elapsed') {
      sandboxRequests().inc({ endpoint: 'partner_search', outcome: held ? 'timeout' : end });
      return this.pending.abandon(reply, end, held);
    }
    if (outcome === 'error') {
      sandboxRequests().inc({ endpoint: 'partner_search', outcome });
      void reply.code(500).send({ error: 'Internal Server Error' });
      return;
    }
    const results = matchedOffers(search.offers, params.match).map((o) => partnerResult(partner, search.search_id, o.external_id));
    sandboxRequests().inc({ endpoint: 'partner_search', outcome: results.length > 0 ? 'results' : 'no_results' });
    const body: PartnerSearchResponse = { search_id: search.search_id, results };
    void reply.code(200).send(body);
  }
}
