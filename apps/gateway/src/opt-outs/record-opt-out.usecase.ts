import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { OK, optOutRecord } from '@lr/domain';
import { counter } from '@lr/observability';
import { OptOuts } from '@lr/persistence';
import type { Principal } from '../auth/principal';
import { Dependencies } from '../http/dependencies';
import { parseOptOutRequest } from './opt-out-request';

/**
 * The answer: the same for every request (a person already suppressed, one
 * never seen, one sold by another affiliate), so it tells the caller nothing
 * about anyone; `opt_out_id` names this request for later questions.
 */
export interface OptOutAnswer {
  code: 'OK';
  status: 'accepted';
  reason: 'OK';
  success: true;
  retryable: false;
  opt_out_id: string;
}

/**
 * Per key and affiliate (both bounded: the keys an operator issued), never
 * anything of the person: the alert on one key's unusual volume reads it
 * (LeadRouterOptOutVolumeHigh, docs/runbooks/opt-outs.md).
 */
const received = counter('gateway_opt_outs_total', 'Opt-out requests recorded over the API, by affiliate and API key', [
  'affiliate_id',
  'key_id',
]);

/**
 * An affiliate's opt-out (POST /api/v1/engine/opt-outs, docs/opt-outs.md):
 * the person's email and phone keys are suppressed for every affiliate from
 * this statement's commit on, and every buyer that accepted a lead of theirs
 * gets a revocation notice (relayed by the delivery service). It is
 * attributed to the API key that sent it (`opt_outs.api_key_id`: what `ops
 * optout list --key` finds and `optout reverse` undoes) and counted per key.
 */
@Injectable()
export class RecordOptOut {
  constructor(
    private readonly optOuts: OptOuts,
    private readonly deps: Dependencies,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'amqp' | 'personKeySecret'>,
  ) {}

  async run(principal: Principal, body: unknown, now = new Date()): Promise<OptOutAnswer> {
    const keys = parseOptOutRequest(this.config.personKeySecret, body);
    const record = optOutRecord({
      id: randomUUID(),
      receivedAt: now,
      source: 'affiliate',
      affiliateId: principal.affiliateId,
      apiKeyId: principal.keyId,
      reference: null,
      keys,
      actor: `affiliate:${principal.affiliateId}`,
      relay: this.config.amqp.prefix,
    });
    await this.deps.call('postgres', () => this.optOuts.record(record));
    received.inc({ affiliate_id: principal.affiliateId, key_id: principal.keyId });
    return {
      code: OK.code as 'OK',
      status: OK.status as 'accepted',
      reason: OK.reason as 'OK',
      success: true,
      retryable: false,
      opt_out_id: record.id,
    };
  }
}
