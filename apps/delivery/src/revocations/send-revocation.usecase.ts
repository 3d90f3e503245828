import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import type { RevocationRequestedV1 } from '@lr/contracts';
import {
  DeliverySettings,
  fillHeaders,
  MappingConfigError,
  PartnerSettings,
  RevocationBuyer,
  revocationNoticeDocument,
  revocationTarget,
} from '@lr/domain';
import { counter } from '@lr/observability';
import { ClaimedNotice, OptOuts } from '@lr/persistence';
import { HttpAbortedError, HttpBodyTooLargeError, HttpTransportError, postJsonAnswer } from '@lr/http-client';

/** A buyer's answer to a notice: its status is all we read. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** The claim holds a notice this much longer than its send may take: a killed sender gives it up then (REVOCATION_SEND_TIMEOUT_MS). */
const CLAIM_MARGIN_MS = 1_000;

const sends = counter('delivery_revocation_notices_total', 'Revocation notices sent to buyers, by buyer kind and outcome', [
  'buyer_kind',
  'outcome',
]);

/** The buyer did not acknowledge: retried with the back-off, then dead-lettered (the notice stays open in `optout status`). */
export class NoticeNotAcknowledgedError extends Error {
  constructor(
    noticeId: string,
    readonly reason: string,
  ) {
    super(`revocation notice ${noticeId} not acknowledged: ${reason}`);
    this.name = 'NoticeNotAcknowledgedError';
  }
}

/**
 * Sends one revocation notice (docs/opt-outs.md): claims its row (acknowledged
 * or held by another sender: nothing to do now), POSTs the notice document
 * to the buyer's revocation channel with `Idempotency-Key: <notice id>`, and
 * books a 2xx answer as the buyer's receipt. A notice is sent again only
 * when no receipt was booked (a crash between the call and the booking, a
 * failed call): the buyer sees the same notice id, and a buyer that
 * de-duplicates on it, as the sandbox does, records one notice.
 */
@Injectable()
export class SendRevocation {
  private readonly log = new Logger(SendRevocation.name);

  constructor(
    private readonly optOuts: OptOuts,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'revocationSendTimeoutMs'>,
  ) {}

  /**
   * Sends the notice, or does nothing when it is acknowledged, cancelled (its
   * opt-out was reversed) or another sender holds it (a duplicate message:
   * that sender books the outcome; if it died, its hold lapses and the relay
   * queues the notice again).
   */
  async run(msg: RevocationRequestedV1, env: NodeJS.ProcessEnv = process.env): Promise<void> {
    const claim = await this.optOuts.claim(msg.noticeId, this.config.revocationSendTimeoutMs + CLAIM_MARGIN_MS);
    if (claim.state !== 'claimed') return;
    const notice = claim.notice;
    const target = revocationTarget(buyerOf(notice));
    if (!target) {
      // Not an error to retry: the buyer has no channel we can call. An operator sends it and records the receipt.
      await this.optOuts.failed(
        notice.id,
        'no revocation channel configured for this buyer: send it by other means, then record it with `optout acknowledge`',
      );
      sends.inc({ buyer_kind: notice.buyerKind, outcome: 'manual' });
      this.log.warn({
        msg: 'revocation notice needs an operator',
        notice_id: notice.id,
        buyer_kind: notice.buyerKind,
        buyer_id: notice.buyerId,
      });
      return;
    }
    const failure = await this.post(notice, target.url, target.headers, env);
    if (failure === null) {
      sends.inc({ buyer_kind: notice.buyerKind, outcome: 'acknowledged' });
      this.log.log({
        msg: 'revocation notice acknowledged',
        notice_id: notice.id,
        lead_id: notice.leadId,
        buyer_kind: notice.buyerKind,
        buyer_id: notice.buyerId,
      });
      return;
    }
    await this.optOuts.failed(notice.id, failure);
    sends.inc({ buyer_kind: notice.buyerKind, outcome: 'failed' });
    throw new NoticeNotAcknowledgedError(notice.id, failure);
  }

  /** Null when the buyer acknowledged (and its receipt is booked); else the failure, in our own words. */
  private async post(
    notice: ClaimedNotice,
    url: string,
    headerTemplates: Readonly<Record<string, string>> | undefined,
    env: NodeJS.ProcessEnv,
  ): Promise<string | null> {
    let headers: Record<string, string>;
    try {
      headers = { ...fillHeaders(headerTemplates, env), 'idempotency-key': notice.id };
    } catch (e) {
      if (e instanceof MappingConfigError) return `headers: ${e.problem}`;
      throw e;
    }
    try {
      const answer = await postJsonAnswer(new URL(url), revocationNoticeDocument(notice), {
        headers,
        signal: AbortSignal.timeout(this.config.revocationSendTimeoutMs),
        maxBytes: MAX_ANSWER_BYTES,
        readsInFull: () => false,
      });
      if (answer.status < 200 || answer.status > 299) return `HTTP ${answer.status}`;
      await this.optOuts.acknowledge(notice.id, { http_status: answer.status, at: new Date().toISOString(), by: 'buyer' });
      return null;
    } catch (e) {
      if (e instanceof HttpAbortedError) return `no answer within ${this.config.revocationSendTimeoutMs} ms`;
      if (e instanceof HttpTransportError) return e.message;
      if (e instanceof HttpBodyTooLargeError) return e.message;
      throw e;
    }
  }
}

function buyerOf(n: ClaimedNotice): RevocationBuyer {
  if (n.buyerKind === 'school') return { kind: 'school', delivery: n.delivery as DeliverySettings | null };
  return {
    kind: 'partner',
    adapter: n.partner?.adapter ?? 'unknown',
    baseUrl: n.partner?.baseUrl ?? '',
    settings: n.partner?.settings as PartnerSettings | null,
  };
}
