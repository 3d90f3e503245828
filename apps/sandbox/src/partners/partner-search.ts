import { clientRequestIdOf } from '@lr/observability';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PendingRequests } from '../shared/pending-requests';
import { ReceiptKind, ReceivedStore } from '../shared/received-store';
import { recordedHeaders } from '../shared/request-parts';
import { SandboxEndpoint, sandboxRequests } from '../shared/sandbox-metrics';
import type { Markup, Outcome, SandboxParams } from '../shared/sandbox-params';
import { PartnerSearchResponse, parseSearchRequest } from './partner-protocol';
import { matchedOffers, partnerResult } from './partner-results';

/** What differs between the partner protocols' searches: how a request is read and an answer written. */
export interface SearchProtocol {
  kind: Extract<ReceiptKind, 'partner_search' | 'exchange_search'>;
  endpoint: Extract<SandboxEndpoint, 'partner_search' | 'exchange_search'>;
  /** The search id and the partner's offer ids asked, in order (InvalidParam when the body does not fit). */
  read(body: unknown): { searchId: string; externalIds: string[] };
  /** The 200 body for the matched offers (`markup`: which display string is made hostile). */
  results(partner: string, searchId: string, externalIds: string[], markup: Markup): unknown;
  /** The body of `outcome=error` (HTTP 500). */
  errorBody: unknown;
}

/** The sandbox partner protocol's search (docs/sandbox.md, "Partner protocol"). */
export const SANDBOX_SEARCH: SearchProtocol = {
  kind: 'partner_search',
  endpoint: 'partner_search',
  read(body) {
    const search = parseSearchRequest(body);
    return { searchId: search.search_id, externalIds: search.offers.map((o) => o.external_id) };
  },
  results(partner, searchId, externalIds, markup): PartnerSearchResponse {
    return { search_id: searchId, results: externalIds.map((id) => partnerResult(partner, searchId, id, markup)) };
  },
  errorBody: { error: 'Internal Server Error' },
};

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

  async answer(
    req: FastifyRequest,
    reply: FastifyReply,
    partner: string,
    params: SandboxParams,
    outcome: Outcome,
    protocol = SANDBOX_SEARCH,
  ): Promise<void> {
    const search = protocol.read(req.body);
    this.received.record(protocol.kind, partner, {
      received_at: new Date().toISOString(),
      request_id: clientRequestIdOf(req.raw) ?? String(req.id),
      outcome,
      delay_ms: params.delayMs,
      headers: recordedHeaders(req),
      body: req.body,
    });
    const held = outcome === 'timeout';
    const end = await this.pending.wait(reply.raw, held ? null : params.delayMs);
    if (end !== 'elapsed') {
      sandboxRequests().inc({ endpoint: protocol.endpoint, outcome: held ? 'timeout' : end });
      return this.pending.abandon(reply, end, held);
    }
    if (outcome === 'error') {
      sandboxRequests().inc({ endpoint: protocol.endpoint, outcome });
      void reply.code(500).send(protocol.errorBody);
      return;
    }
    const matched = matchedOffers(search.externalIds, params.match);
    sandboxRequests().inc({ endpoint: protocol.endpoint, outcome: matched.length > 0 ? 'results' : 'no_results' });
    void reply.code(200).send(protocol.results(partner, search.searchId, matched, params.markup));
  }
}
