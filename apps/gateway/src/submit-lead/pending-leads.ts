import { Inject, Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { SubmitRequestedV1 } from '@lr/contracts';
import { counter } from '@lr/observability';
import { REDIS_CLIENT } from '@lr/platform';
import { Dependencies, DependencyFailure } from '../http/dependencies';

/**
 * How long a PENDING answer is remembered: as long as its submit may wait in a
 * queue or a dead-letter queue for an operator's replay (docs/runbooks/dead-letters.md).
 * Once checks has stored the lead, its row answers instead.
 */
export const PENDING_LEAD_TTL_SECONDS = 7 * 24 * 3600;

/** What the gateway knows of a submit it answered PENDING (no contact data). */
export interface PendingLead {
  leadId: string;
  affiliateId: string;
  kind: SubmitRequestedV1['kind'];
  offerId: string;
  resultId: string | null;
  searchId: string | null;
  isTest: boolean;
}

const failures = counter('gateway_pending_leads_unremembered_total', 'PENDING answers the gateway could not remember in Redis');

/**
 * The submits this gateway answered PENDING, remembered in Redis until
 * checks stores them. A PENDING submit is durable in the broker, but
 * checks may not have taken it yet (a backlog, a restart, an outage, or a
 * dead-letter queue awaiting replay): without this, the lead-status read and a
 * direct-post retry naming the svc_lead_id just given out would answer 404,
 * as if the lead did not exist.
 */
@Injectable()
export class PendingLeads {
  private readonly log = new Logger(PendingLeads.name);

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly deps: Dependencies,
  ) {}

  /** Best effort: the PENDING answer stands without it, so a failure is logged and counted, not thrown. */
  async remember(lead: PendingLead): Promise<void> {
    try {
      await this.deps.call('redis', () => this.redis.set(key(lead.leadId), JSON.stringify(lead), 'EX', PENDING_LEAD_TTL_SECONDS));
    } catch (e) {
      failures.inc();
      const cause = e instanceof DependencyFailure ? e.causeError : e;
      this.log.warn({
        msg: 'could not remember a PENDING lead; its status reads 404 until checks stores it',
        lead_id: lead.leadId,
        err: String((cause as Error)?.message ?? cause),
      });
    }
  }

  /** The caller's PENDING lead `leadId`, if this gateway answered it PENDING and delivery has not stored it yet. */
  async find(leadId: string, affiliateId: string): Promise<PendingLead | undefined> {
    const text = await this.deps.call('redis', () => this.redis.get(key(leadId)));
    const lead = text ? (JSON.parse(text) as PendingLead) : undefined;
    return lead?.affiliateId === affiliateId ? lead : undefined;
  }
}

const key = (leadId: string) => `pending-lead:${leadId}`;
