import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { REDIS_CLIENT } from '@lr/platform';
import { apiKeyEventsChannel } from '@lr/redis';

/**
 * The operator CLI's announcements on Redis (`keys revoke` names a key id;
 * `catalog apply` says "*", everything may have changed), for the gateway's
 * in-memory caches (API keys, campaigns). A cache may serve from memory only
 * while `listening`: while the subscription is down (Redis away, reconnecting)
 * an announcement could be missed, so nothing is served from memory, and
 * caches are told to drop everything when it comes back. `generation` moves
 * on every announcement and outage: a lookup that began before one must not
 * cache what it read.
 */
@Injectable()
export class CatalogChanges implements OnModuleDestroy {
  private readonly log = new Logger(CatalogChanges.name);
  private readonly subscriber: Redis;
  private readonly listeners: Array<(id: string) => void> = [];
  private subscribed = false;
  private current = 0;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(REDIS_CLIENT) redis: Redis) {
    this.subscriber = redis.duplicate({ enableOfflineQueue: true, lazyConnect: true });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('ready', () => {
      this.changed('*');
      this.subscriber
        .subscribe(apiKeyEventsChannel(config.redis.keyPrefix))
        .then(() => (this.subscribed = true))
        .catch((e: Error) =>
          this.log.warn({ msg: 'catalog announcements not subscribed; keys and campaigns are not cached', err: e.message }),
        );
    });
    this.subscriber.on('close', () => {
      this.subscribed = false;
      this.changed('*');
    });
    this.subscriber.on('message', (_channel: string, id: string) => this.changed(id));
    this.subscriber.connect().catch(() => undefined);
  }

  get listening(): boolean {
    return this.subscribed;
  }

  get generation(): number {
    return this.current;
  }

  /** `listener` hears every announced id ("*": drop everything). */
  onChange(listener: (id: string) => void): void {
    this.listeners.push(listener);
  }

  /** Something changed (an id, or "*"): moves the generation and tells every cache. */
  changed(id: string): void {
    this.current += 1;
    for (const listener of this.listeners) listener(id);
  }

  onModuleDestroy(): void {
    this.subscriber.disconnect();
  }
}
