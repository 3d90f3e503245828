import { Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdempotencyStore } from '../shared/idempotency-store';
import { LeadReceiver } from '../shared/lead-receiver';
import { forgetNetwork, networkReceipts, NetworkKinds } from '../shared/network-receipts';
import { ReceivedStore } from '../shared/received-store';
import { idempotencyKeyOf, systemName } from '../shared/request-parts';
import { sandboxRequests } from '../shared/sandbox-metrics';
import { PARTNER_PARAMS, outcomeOverride, parseListLimit, parseSandboxParams, rawQueryOf, SandboxParams } from '../shared/sandbox-params';
import { PartnerSearch, SearchProtocol } from '../partners/partner-search';
import { EXCHANGE_KEY_HEADER, exchangeApiKey, parseExchangeApplication, parseExchangeSearch } from './exchange-protocol';
import { exchangeDecision, exchangeMatch } from './exchange-results';

const EXCHANGE_SEARCH: SearchProtocol = {
  kind: 'exchange_search',
  endpoint: 'exchange_search',
  read(body) {
    const search = parseExchangeSearch(body);
    return { searchId: search.RequestId, externalIds: search.Campaigns };
  },
  results(partner, requestId, codes, markup) {
    return { RequestId: requestId, Status: 'OK', Data: { Matches: codes.map((code) => exchangeMatch(partner, requestId, code, markup)) } };
  },
  errorBody: { ErrorCode: 'InternalError' },
};

const KINDS: NetworkKinds = { submits: 'exchange_submit', searches: 'exchange_search' };
const UNAUTHORIZED = { ErrorCode: 'Unauthorized', Message: 'A valid X-Api-Key header is required' };

/**
 * A simulated partner network speaking the exchange protocol:
 * `POST /exchange/<name>/v2/match` and `POST /exchange/<name>/v2/applications`,
 * with the query of the partner's base_url (the same controls as the sandbox
 * partner protocol) and the API key `X-Api-Key: sandbox-key-<name>`.
 */
@Controller('exchange/:name')
export class ExchangeController {
  constructor(
    private readonly searches: PartnerSearch,
    private readonly leads: LeadReceiver,
    private readonly received: ReceivedStore,
    private readonly keys: IdempotencyStore,
  ) {}

  @Post('v2/match')
  async match(@Param('name') rawName: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const call = this.callOf(rawName, req, reply, 'exchange_search');
    if (call) await this.searches.answer(req, reply, call.name, call.params, call.outcome, EXCHANGE_SEARCH);
  }

  @Post('v2/applications')
  async apply(@Param('name') rawName: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const call = this.callOf(rawName, req, reply, 'exchange_submit');
    if (!call) return;
    const idempotencyKey = idempotencyKeyOf(req);
    parseExchangeApplication(req.body);
    await this.leads.receive(req, reply, {
      endpoint: 'exchange_submit',
      kind: 'exchange_submit',
      name: call.name,
      params: call.params,
      outcome: call.outcome,
      idempotencyKey,
      answerOf: exchangeDecision,
    });
  }

  /** Applications under `leads` (as for schools), match requests under `searches`. */
  @Get('received')
  list(@Param('name') rawName: string, @Req() req: FastifyRequest) {
    const name = systemName(rawName, 'partner');
    return {
      exchange: name,
      ...networkReceipts(this.received, KINDS, name, parseListLimit(rawQueryOf(req.url), this.received.maxPerName)),
    };
  }

  @Delete('received')
  @HttpCode(200)
  clear(@Param('name') rawName: string) {
    const name = systemName(rawName, 'partner');
    return { exchange: name, ...forgetNetwork(this.received, this.keys, KINDS, name) };
  }

  /**
   * The name and controls of a call, once its API key is right. A missing or
   * wrong key answers 401 in the exchange's shape, and nothing is recorded:
   * the exchange never looked at the request.
   */
  private callOf(rawName: string, req: FastifyRequest, reply: FastifyReply, endpoint: 'exchange_search' | 'exchange_submit') {
    const name = systemName(rawName, 'partner');
    const params: SandboxParams = parseSandboxParams(rawQueryOf(req.url), PARTNER_PARAMS);
    if (req.headers[EXCHANGE_KEY_HEADER] !== exchangeApiKey(name)) {
      sandboxRequests().inc({ endpoint, outcome: 'unauthorized' });
      void reply.code(401).send(UNAUTHORIZED);
      return undefined;
    }
    return { name, params, outcome: outcomeOverride(req.headers['x-sandbox-outcome']) ?? params.outcome };
  }
}
