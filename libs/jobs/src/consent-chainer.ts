import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { linkRecords, sealDue } from '@lr/domain';
import { ChainRun, ConsentLedger } from '@lr/persistence';
import { PeriodicReading } from '@lr/observability';

/** How often the checks link newly appended consent records into the chain (docs/consent-ledger.md). */
export const CONSENT_CHAIN_INTERVAL_MS = 1000;

/**
 * One chainer run: links every appended record after the chain's head (libs/domain
 * linkRecords), then seals yesterday (UTC) when it is not sealed yet. Safe to
 * run anywhere at any time: one chainer works at a time, another answers busy.
 */
export function chainConsentLedger(ledger: ConsentLedger, now: () => Date = () => new Date()): Promise<ChainRun> {
  return ledger.chain((head, pending) => linkRecords(head, pending, (p, position) => p.record(position)), {
    sealDay: (last) => sealDue(now(), last),
  });
}

/**
 * The single writer of the consent chain, in the checks (which append the
 * records): every second, off the submit path. Each replica tries; the
 * advisory lock lets one link at a time. A seal is logged: the log line is a
 * copy of the day's head outside the database (docs/runbooks/consent-dispute.md).
 */
@Injectable()
export class ConsentChainer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(ConsentChainer.name);
  private readonly reading: PeriodicReading<ChainRun>;

  constructor(ds: DataSource) {
    const ledger = new ConsentLedger(ds);
    this.reading = new PeriodicReading(
      CONSENT_CHAIN_INTERVAL_MS,
      async () => {
        const run = await chainConsentLedger(ledger);
        if (run.kind === 'chained' && run.sealed) {
          this.log.log({ msg: 'consent chain sealed', day: run.sealed.day, count: run.sealed.count, head_digest: run.sealed.headDigest });
        }
        return run;
      },
      (e) =>
        this.log.warn({
          msg: 'cannot link consent records into the chain; tried again every second',
          err: (e as Error)?.message ?? String(e),
        }),
    );
  }

  onApplicationBootstrap(): void {
    this.reading.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.reading.stop();
  }
}
