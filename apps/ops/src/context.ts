import { AppConfig, ConfigError, loadConfig, MasterKeys } from '@lr/config';
import type { PersonKeySecret } from '@lr/domain';
import { Topology, topologyFor } from '@lr/messaging';
import { CliError, EXIT } from './cli-error';
import { CliIo } from './io';

/** What every command gets: where to write and the validated configuration (read on first use). */
export class CliContext {
  private config?: AppConfig;

  constructor(
    readonly io: CliIo,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  databaseUrl(): string {
    return this.appConfig().database.url;
  }

  /** The key store's database (KEYSTORE_DATABASE_URL, or DATABASE_URL's with `_keys`). */
  keyStoreUrl(): string {
    return this.appConfig().keyStore.url;
  }

  /** The master keys that wrap the data keys (DATA_MASTER_KEYS, DATA_MASTER_KEY_ID). */
  masterKeys(): MasterKeys {
    return this.appConfig().keyStore.masterKeys;
  }

  redis(): { url: string; keyPrefix: string } {
    return this.appConfig().redis;
  }

  /** Days the retention run keeps searches and handled-message records (RETENTION_SEARCH_DAYS, RETENTION_MESSAGE_DAYS). */
  retention(): { searchDays: number; messageDays: number } {
    return this.appConfig().retention;
  }

  /** The server secret of the stored person keys (PERSON_KEY_SECRET or PERSON_KEY_SECRET_FILE; docs/security.md). */
  personKeySecret(): PersonKeySecret {
    return this.appConfig().personKeySecret;
  }

  /** Whose delivery service relays the notices of an opt-out recorded here: AMQP_PREFIX (docs/opt-outs.md). */
  relay(): string {
    return this.appConfig().amqp.prefix;
  }

  /** The broker and the topology of AMQP_PREFIX (the DLQ names come from it). */
  messaging(): { url: string; topology: Topology } {
    const config = this.appConfig();
    return { url: config.amqp.url, topology: topologyFor(config) };
  }

  private appConfig(): AppConfig {
    if (!this.config) {
      try {
        this.config = loadConfig('ops', this.env);
      } catch (e) {
        if (e instanceof ConfigError) throw new CliError(e.message, EXIT.usage);
        throw e;
      }
    }
    return this.config;
  }
}
