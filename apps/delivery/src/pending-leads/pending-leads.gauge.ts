import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { gauge, PeriodicReading } from '@lr/observability';
import { LeadRepository, PendingLeads } from '@lr/persistence';

/** How often each delivery replica reads the pending leads. */
export const PENDING_LEADS_INTERVAL_MS = 15_000;

const pendingCount = gauge(
  'delivery_pending_leads',
  "Leads waiting for their buyer's answer (status pending), read from PostgreSQL every 15 s",
);
const oldestSeconds = gauge(
  'delivery_pending_lead_oldest_seconds',
  "Seconds since the oldest lead still waiting for its buyer's answer was submitted (0 when none), read from PostgreSQL every 15 s",
);

/**
 * Keeps `delivery_pending_leads` and `delivery_pending_lead_oldest_seconds`
 * current: a lead stays pending from its sale's reservation until delivery
 * books its buyer's answer, which takes at most a few minutes (the buyer's
 * deadline, the booking's retries, the message's back-off; docs/submit.md).
 * One older than that waits on something that will not end by itself (its
 * delivery dead-lettered, a worker stuck): the alert on the oldest's age
 * (docs/observability.md, Alerts). Every replica reads the same rows, through
 * an index of the pending leads alone: aggregate with max(). While PostgreSQL
 * cannot answer, the last values stay; it never throws.
 */
@Injectable()
export class PendingLeadsGauge implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(PendingLeadsGauge.name);
  private readonly reading: PeriodicReading<PendingLeads>;

  constructor(private readonly leads: LeadRepository) {
    this.reading = new PeriodicReading(
      PENDING_LEADS_INTERVAL_MS,
      async () => {
        const pending = await this.leads.pending();
        pendingCount.set(pending.count);
        oldestSeconds.set(pending.oldestSeconds);
        return pending;
      },
      // An outage is reported by readiness and the workers' pause: said once, not every interval.
      (e) =>
        this.log.warn({ msg: 'cannot read the pending leads; the gauges keep their last values', err: (e as Error)?.message ?? String(e) }),
    );
  }

  onApplicationBootstrap(): void {
    this.reading.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.reading.stop();
  }

  /** One reading (shared with one under way): what it read, or undefined when PostgreSQL could not say. */
  refresh(): Promise<PendingLeads | undefined> {
    return this.reading.refresh();
  }
}
