import { Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdempotencyStore } from '../shared/idempotency-store';
import { LeadReceiver } from '../shared/lead-receiver';
import { forgetNetwork, networkReceipts, NetworkKinds } from '../shared/network-receipts';
import { ReceivedStore } from '../shared/received-store';
import { idempotencyKeyOf, systemName } from '../shared/request-parts';
import { PARTNER_PARAMS, outcomeOverride, parseListLimit, parseSandboxParams, rawQueryOf } from '../shared/sandbox-params';
import { parseSubmitRequest } from './partner-protocol';
import { PartnerSearch } from './partner-search';

const KINDS: NetworkKinds = { submits: 'partner_submit', searches: 'partner_search' };

/**
 * A simulated partner network: `POST /partners/<name>/search` and
 * `POST /partners/<name>/submit`, both with the query of the partner's base_url.
 */
@Controller('partners/:name')
export class PartnersController {
  constructor(
    private readonly searches: PartnerSearch,
    private readonly leads: LeadReceiver,
    private readonly received: ReceivedStore,
    private readonly keys: IdempotencyStore,
  ) {}

  @Post('search')
  async search(@Param('name') rawName: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const name = systemName(rawName, 'partner');
    const params = parseSandboxParams(rawQueryOf(req.url), PARTNER_PARAMS);
    const outcome = outcomeOverride(req.headers['x-sandbox-outcome']) ?? params.outcome;
    await this.searches.answer(req, reply, name, params, outcome);
  }

  @Post('submit')
  async submit(@Param('name') rawName: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const name = systemName(rawName, 'partner');
    const params = parseSandboxParams(rawQueryOf(req.url), PARTNER_PARAMS);
    const outcome = outcomeOverride(req.headers['x-sandbox-outcome']) ?? params.outcome;
    const idempotencyKey = idempotencyKeyOf(req);
    parseSubmitRequest(req.body);
    await this.leads.receive(req, reply, { endpoint: 'partner_submit', kind: 'partner_submit', name, params, outcome, idempotencyKey });
  }

  /** Submits under `leads` (as for schools), searches under `searches`. */
  @Get('received')
  list(@Param('name') rawName: string, @Req() req: FastifyRequest) {
    const name = systemName(rawName, 'partner');
    return { partner: name, ...networkReceipts(this.received, KINDS, name, parseListLimit(rawQueryOf(req.url), this.received.maxPerName)) };
  }

  @Delete('received')
  @HttpCode(200)
  clear(@Param('name') rawName: string) {
    const name = systemName(rawName, 'partner');
    return { partner: name, ...forgetNetwork(this.received, this.keys, KINDS, name) };
  }
}
