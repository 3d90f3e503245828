import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { MESSAGE_TYPES, RevocationRequestedV1 } from '@lr/contracts';
import { AmqpConnection } from '@lr/messaging';
import { gauge, PeriodicReading } from '@lr/observability';
import { OptOuts } from '@lr/persistence';
import { OPT_OUT_SOURCES } from '@lr/domain';

/** How often each delivery replica relays new notices: the outbox's partial index is empty between opt-outs. */
export const REVOCATION_RELAY_INTERVAL_MS = 2_000;
const BATCH = 200;
/** The gauges are read every this many relays (15 s). */
const GAUGE_EVERY = Math.round(15_000 / REVOCATION_RELAY_INTERVAL_MS);

const open = gauge(
  'delivery_revocation_notices_open',
  'Revocation notices not yet acknowledged by their buyer, read from PostgreSQL every 15 s',
);
const recorded = gauge(
  'delivery_opt_outs_recorded_last_day',
  'Opt-outs recorded in the last 24 hours, by source (affiliate, operator, deletion), read every 15 s',
  ['source'],
);
const overdue = gauge(
  'delivery_revocation_notices_overdue',
  'Revocation notices past their ten-business-day deadline and not acknowledged, read every 15 s',
);

/**
 * The revocation notices' outbox relay (docs/opt-outs.md). An opt-out writes
 * its notices in the statement that stores it (the gateway or the operator
 * CLI need no broker for it); every interval this relay
 *   - adds the notices of leads accepted after their person's suppression
 *     (a sale reserved just before the opt-out),
 *   - queues again the notices whose sender died mid-send (its claim lapsed
 *     with nothing booked),
 *   - publishes one RevocationRequested per notice not yet queued, then marks
 *     them queued (a crash in between publishes them again: the send is
 *     idempotent),
 * and keeps the open and overdue gauges. Replicas may relay the same notice:
 * the send claims it first. While PostgreSQL or RabbitMQ cannot answer it
 * waits for the next interval; it never throws.
 */
@Injectable()
export class RevocationRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(RevocationRelay.name);
  private readonly reading: PeriodicReading<number>;
  private ticks = 0;

  constructor(
    private readonly optOuts: OptOuts,
    private readonly amqp: AmqpConnection,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'amqp'>,
  ) {
    this.reading = new PeriodicReading(
      REVOCATION_RELAY_INTERVAL_MS,
      () => this.relay(),
      (e) =>
        this.log.warn({ msg: 'cannot relay revocation notices now; trying again every interval', err: (e as Error)?.message ?? String(e) }),
    );
  }

  onApplicationBootstrap(): void {
    this.reading.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.reading.stop();
  }

  /** One relay (shared with one under way): how many notices it queued. */
  refresh(): Promise<number | undefined> {
    return this.reading.refresh();
  }

  private async relay(): Promise<number> {
    if (this.ticks++ % GAUGE_EVERY === 0) {
      const counts = await this.optOuts.counts();
      open.set(counts.open);
      overdue.set(counts.overdue);
      for (const source of OPT_OUT_SOURCES) recorded.set({ source }, counts.recordedLastDay[source] ?? 0);
    }
    // The opt-outs of this system (its message prefix): another system sharing the database relays its own.
    const relay = this.config.amqp.prefix;
    const late = await this.optOuts.addLateNotices(relay);
    if (late > 0) this.log.log({ msg: 'revocation notices added for leads accepted after an opt-out', notices: late });
    const abandoned = await this.optOuts.requeueAbandoned(relay);
    if (abandoned > 0) this.log.warn({ msg: 'revocation notices whose sender stopped mid-send queued again', notices: abandoned });
    let queued = 0;
    for (;;) {
      const ids = await this.optOuts.unqueued(BATCH, relay);
      for (const noticeId of ids)
        await this.amqp.publish<RevocationRequestedV1>(
          MESSAGE_TYPES.RevocationRequested,
          { noticeId },
          { messageId: `revocation:${noticeId}` },
        );
      await this.optOuts.markQueued(ids);
      queued += ids.length;
      if (ids.length < BATCH) return queued;
    }
  }
}
