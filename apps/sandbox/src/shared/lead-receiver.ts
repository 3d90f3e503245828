import { clientRequestIdOf } from '@lr/observability';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdempotencyStore, KeyClaim } from './idempotency-store';
import { isProcessed, leadAnswer } from './lead-answers';
import { PendingRequests } from './pending-requests';
import { ReceiptKind, ReceivedStore } from './received-store';
import { recordedHeaders } from './request-parts';
import { SandboxEndpoint, sandboxRequests } from './sandbox-metrics';
import type { Outcome, SandboxParams } from './sandbox-params';

/** One lead (a school's) or submit (a partner's) to receive, already validated. */
export interface IncomingLead {
  endpoint: Extract<SandboxEndpoint, 'school_lead' | 'partner_submit' | 'exchange_submit'>;
  kind: Extract<ReceiptKind, 'school' | 'partner_submit' | 'exchange_submit'>;
  name: string;
  params: SandboxParams;
  outcome: Outcome;
  idempotencyKey?: string;
  /** The protocol's answer for an outcome that answers at all; default the school protocol's (leadAnswer). */
  answerOf?: typeof leadAnswer;
}

/**
 * The school-system behaviour shared by `POST /schools/<name>/leads` and
 * `POST /partners/<name>/submit`: replay a known Idempotency-Key, else record
 * the lead, wait delay_ms, and answer by outcome.
 */
@Injectable()
export class LeadReceiver {
  constructor(
    private readonly received: ReceivedStore,
    private readonly keys: IdempotencyStore,
    private readonly pending: PendingRequests,
  ) {}

  async receive(req: FastifyRequest, reply: FastifyReply, lead: IncomingLead): Promise<void> {
    const scope = `${lead.kind}/${lead.name}`;
    const answerOf = lead.answerOf ?? leadAnswer;
    let claim: KeyClaim | undefined;
    if (lead.idempotencyKey !== undefined) {
      for (;;) {
        const state = this.keys.lookup(scope, lead.idempotencyKey);
        if (state.kind === 'free') break;
        if (state.kind === 'settled') {
          sandboxRequests().inc({ endpoint: lead.endpoint, outcome: 'replayed' });
          void reply.code(state.answer.status).header('idempotent-replayed', 'true').send(state.answer.body);
          return;
        }
        // Same key still being answered: wait for that answer rather than process it twice.
        const end = await this.pending.wait(reply.raw, null, state.done);
        if (end !== 'elapsed') return this.pending.abandon(reply, end, false);
      }
      claim = this.keys.claim(scope, lead.idempotencyKey);
    }
    let processed: ReturnType<typeof leadAnswer> | undefined;
    try {
      this.received.record(lead.kind, lead.name, {
        received_at: new Date().toISOString(),
        request_id: clientRequestIdOf(req.raw) ?? String(req.id),
        outcome: lead.outcome,
        delay_ms: lead.params.delayMs,
        headers: recordedHeaders(req),
        body: req.body ?? null,
      });
      const held = lead.outcome === 'timeout';
      const end = await this.pending.wait(reply.raw, held ? null : lead.params.delayMs);
      if (end !== 'elapsed') {
        sandboxRequests().inc({ endpoint: lead.endpoint, outcome: held ? 'timeout' : end });
        // The caller went away while the lead waited out delay_ms: the school took the lead all the same (as a real
        // system goes on with a request whose client hung up), so a repeat of the key gets the answer it would have had.
        if (end === 'client_gone' && lead.outcome !== 'timeout' && isProcessed(lead.outcome))
          processed = answerOf(lead.outcome, lead.name, lead.params.reason);
        return this.pending.abandon(reply, end, held);
      }
      if (lead.outcome === 'timeout') return; // unreachable: a held wait never elapses
      const answer = answerOf(lead.outcome, lead.name, lead.params.reason);
      if (isProcessed(lead.outcome)) processed = answer;
      sandboxRequests().inc({ endpoint: lead.endpoint, outcome: lead.outcome });
      void reply.code(answer.status).send(answer.body);
    } finally {
      claim?.finish(processed);
    }
  }
}
