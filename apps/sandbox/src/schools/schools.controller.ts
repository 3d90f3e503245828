import { Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdempotencyStore } from '../shared/idempotency-store';
import { LeadReceiver } from '../shared/lead-receiver';
import { ReceivedStore } from '../shared/received-store';
import { idempotencyKeyOf, systemName } from '../shared/request-parts';
import { SCHOOL_PARAMS, outcomeOverride, parseListLimit, parseSandboxParams, rawQueryOf } from '../shared/sandbox-params';

/**
 * A simulated school (buyer) system: `POST /schools/<name>/leads?outcome=…&delay_ms=…&reason=…`,
 * and what it received, for tests and demos.
 */
@Controller('schools/:name')
export class SchoolsController {
  constructor(
    private readonly leads: LeadReceiver,
    private readonly received: ReceivedStore,
    private readonly keys: IdempotencyStore,
  ) {}

  @Post('leads')
  async lead(@Param('name') rawName: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const name = systemName(rawName, 'school');
    const params = parseSandboxParams(rawQueryOf(req.url), SCHOOL_PARAMS);
    const outcome = outcomeOverride(req.headers['x-sandbox-outcome']) ?? params.outcome;
    const idempotencyKey = idempotencyKeyOf(req);
    await this.leads.receive(req, reply, { endpoint: 'school_lead', kind: 'school', name, params, outcome, idempotencyKey });
  }

  @Get('received')
  list(@Param('name') rawName: string, @Req() req: FastifyRequest) {
    const name = systemName(rawName, 'school');
    const { items, summary } = this.received.list('school', name, parseListLimit(rawQueryOf(req.url), this.received.maxPerName));
    return { school: name, leads: items, count: items.length, total_received: summary.total_received };
  }

  /** Forgets the school's receipts and Idempotency-Keys: a fresh school for the next test. */
  @Delete('received')
  @HttpCode(200)
  clear(@Param('name') rawName: string) {
    const name = systemName(rawName, 'school');
    this.keys.forget(`school/${name}`);
    return { school: name, cleared: this.received.clear('school', name) };
  }
}
