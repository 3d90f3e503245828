import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { ConfigKeyWrapper, ContactSealer, DataKeys, dataSourceOptions, KEYSTORE_MIGRATIONS } from '@lr/persistence';

/** The key store's DataSource (its own database, KEYSTORE_DATABASE_URL): a small pool, read by id and written in batches. */
export const KEY_STORE = Symbol('KEY_STORE');

@Injectable()
class KeyStoreCloser implements OnApplicationShutdown {
  constructor(@Inject(KEY_STORE) private readonly ds: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.ds.isInitialized) await this.ds.destroy();
  }
}

/**
 * The contact sealer (libs/persistence ContactSealer, docs/security.md): the
 * key store's connection and the configured master keys (ConfigKeyWrapper).
 * At start-up it waits for the key store as the main database's DataSource
 * waits for PostgreSQL; later, a pool that cannot connect fails the statement
 * that needed it (503 at the gateway, a retried message in a worker).
 */
@Global()
@Module({
  providers: [
    {
      provide: KEY_STORE,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => {
        const ds = new DataSource(
          dataSourceOptions({
            url: config.keyStore.url,
            timeoutMs: config.dependencyTimeoutMs,
            applicationName: `${config.app}-keys`,
            poolSize: 4,
            // Workers queue for a connection as long as for the main database's (database.module.ts).
            poolWaitMs: config.app === 'gateway' ? undefined : Math.max(config.dependencyTimeoutMs, 15_000),
            genericPlans: true,
            migrations: KEYSTORE_MIGRATIONS,
          }),
        );
        // At start-up it keeps trying until the key store answers, as the main database's DataSource does.
        for (;;) {
          try {
            await ds.initialize();
            return ds;
          } catch {
            await new Promise((r) => setTimeout(r, 1000));
          }
        }
      },
    },
    KeyStoreCloser,
    {
      provide: ContactSealer,
      inject: [KEY_STORE, APP_CONFIG],
      useFactory: (ds: DataSource, config: AppConfig) =>
        new ContactSealer(new DataKeys(ds), new ConfigKeyWrapper(config.keyStore.masterKeys)),
    },
  ],
  exports: [ContactSealer],
})
export class KeyStoreModule {}
