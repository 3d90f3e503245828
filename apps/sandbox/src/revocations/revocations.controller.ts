import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidParam } from '../shared/invalid-param';
import { idempotencyKeyOf, systemName } from '../shared/request-parts';
import { PARTNER_PARAMS, parseSandboxParams, rawQueryOf, SCHOOL_PARAMS } from '../shared/sandbox-params';
import { RevocationStore, SystemKind } from './revocation-store';

/**
 * Revocation notices (docs/sandbox.md, docs/opt-outs.md): a simulated school
 * or partner network takes `POST /schools/<name>/revocations` (and
 * `/partners/<name>/revocations`) with the query string of its leads URL
 * (base URL): `delay_ms` delays the answer, `revocation=ignore` makes it
 * never acknowledge (503, recorded all the same). Notices are recorded once
 * per Idempotency-Key (the notice id), with how many times each arrived, and
 * listed by `GET …/revocations`.
 */
@Controller()
export class RevocationsController {
  constructor(private readonly store: RevocationStore) {}

  @Post('schools/:name/revocations')
  school(@Param('name') name: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply, @Body() body: unknown): Promise<void> {
    return this.receive('school', systemName(name, 'school'), req, reply, body);
  }

  @Post('partners/:name/revocations')
  partner(@Param('name') name: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply, @Body() body: unknown): Promise<void> {
    return this.receive('partner', systemName(name, 'partner'), req, reply, body);
  }

  @Get('schools/:name/revocations')
  schoolList(@Param('name') name: string) {
    return this.list('school', systemName(name, 'school'));
  }

  @Get('partners/:name/revocations')
  partnerList(@Param('name') name: string) {
    return this.list('partner', systemName(name, 'partner'));
  }

  @Delete('schools/:name/revocations')
  @HttpCode(200)
  clearSchool(@Param('name') name: string) {
    return { school: name, cleared: this.store.clear('school', systemName(name, 'school')) };
  }

  private list(kind: SystemKind, name: string) {
    const notices = this.store.list(kind, name);
    return { [kind]: name, revocations: notices, count: notices.length };
  }

  private async receive(kind: SystemKind, name: string, req: FastifyRequest, reply: FastifyReply, body: unknown): Promise<void> {
    const params = parseSandboxParams(rawQueryOf(req.url), kind === 'school' ? SCHOOL_PARAMS : PARTNER_PARAMS);
    const noticeId = idempotencyKeyOf(req);
    if (noticeId === undefined) throw new InvalidParam('Idempotency-Key', 'header', 'Idempotency-Key (the notice id) is required');
    if (!isNotice(body))
      throw new InvalidParam('body', 'body', 'body must be a revocation notice: type consent_revoked, notice_id, lead_id');
    if (params.delayMs > 0) await new Promise((r) => setTimeout(r, params.delayMs));
    const acknowledged = params.revocation === 'acknowledge';
    this.store.record(kind, name, noticeId, body, acknowledged);
    if (!acknowledged) {
      await reply.status(503).send({ error: 'REVOCATIONS_NOT_ACKNOWLEDGED' });
      return;
    }
    await reply.status(200).send({ result: 'received', notice_id: noticeId });
  }
}

function isNotice(b: unknown): b is { type: string; notice_id: string; lead_id: string } {
  const o = b as Record<string, unknown> | null;
  return (
    typeof o === 'object' && o !== null && o.type === 'consent_revoked' && typeof o.notice_id === 'string' && typeof o.lead_id === 'string'
  );
}
