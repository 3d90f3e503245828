import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PARTITION_DAYS_AHEAD, PartitionStore } from '@lr/persistence';
import { PeriodicReading } from '@lr/observability';

/** How often a service checks that the day partitions ahead exist (a day's are made days before they are needed). */
export const PARTITION_CHECK_INTERVAL_MS = 15 * 60_000;

/**
 * Every service that uses PostgreSQL creates the day partitions of the
 * coming days (docs/storage.md) at start and every quarter hour, so writes
 * never meet a missing day whether or not the scheduled retention run ran.
 * Creating one that exists is a catalog lookup; services starting together
 * take turns (PartitionStore.ensureDays holds an advisory lock).
 */
@Injectable()
export class PartitionKeeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(PartitionKeeper.name);
  private readonly reading: PeriodicReading<number>;

  constructor(ds: DataSource) {
    const store = new PartitionStore(ds);
    this.reading = new PeriodicReading(
      PARTITION_CHECK_INTERVAL_MS,
      async () => {
        const created = await store.ensureDays(new Date(), PARTITION_DAYS_AHEAD);
        if (created > 0) this.log.log({ msg: 'day partitions created', created });
        return created;
      },
      (e) => this.log.warn({ msg: 'cannot create the day partitions ahead; tried again later', err: (e as Error)?.message ?? String(e) }),
    );
  }

  onApplicationBootstrap(): void {
    this.reading.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.reading.stop();
  }
}
