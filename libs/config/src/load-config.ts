import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { APP_DEFAULT_PORTS, APP_DEFAULT_PREFETCH, AppConfig, AppName } from './app-config';
import { EnvironmentVariables } from './env.schema';
import { keyStoreUrl, parseMasterKeys } from './master-keys';

export class ConfigError extends Error {}

/**
 * Whether production refuses to start without DATA_MASTER_KEYS. Off while no
 * service seals contact data yet (docs/security.md, Where it is applied now):
 * the deployments (k8s secrets, docker-compose) get the variable with the
 * step that starts sealing, and this turns on then.
 */
const REQUIRE_MASTER_KEYS_IN_PRODUCTION = false;

/**
 * Reads and validates the environment once. Throws a ConfigError naming every
 * bad variable, so a misconfigured service stops at start-up, not mid-request.
 */
export function loadConfig(app: AppName, env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(new EnvironmentVariables()).concat(
    'HTTP_PORT',
    'AMQP_PREFETCH',
    'KEYSTORE_DATABASE_URL',
    'DATA_MASTER_KEYS',
    'DATA_MASTER_KEYS_FILE',
    'DATA_MASTER_KEY_ID',
  );
  const raw: Record<string, string> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const errors = validateSync(parsed, { skipMissingProperties: false, forbidUnknownValues: false });
  const optional = ['HTTP_PORT', 'AMQP_PREFETCH'];
  const bad = errors.filter((e) => !(optional.includes(e.property) && e.value === undefined));
  const masterKeys = parseMasterKeys(
    { keys: parsed.DATA_MASTER_KEYS, file: parsed.DATA_MASTER_KEYS_FILE, currentId: parsed.DATA_MASTER_KEY_ID },
    REQUIRE_MASTER_KEYS_IN_PRODUCTION && parsed.NODE_ENV === 'production',
  );
  if (bad.length > 0 || 'error' in masterKeys) {
    // A key's value is never echoed: only the variable and what is wrong with it.
    const lines = bad.map((e) =>
      e.property.startsWith('DATA_MASTER_KEYS')
        ? `${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`
        : `${e.property}=${JSON.stringify(e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`,
    );
    if ('error' in masterKeys) lines.push(masterKeys.error);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const httpPort = app === 'gateway' ? parsed.PORT : app === 'sandbox' ? parsed.SANDBOX_PORT : (parsed.HTTP_PORT ?? APP_DEFAULT_PORTS[app]);
  return Object.freeze({
    app,
    env: parsed.NODE_ENV as AppConfig['env'],
    httpPort,
    logLevel: parsed.LOG_LEVEL,
    database: { url: parsed.DATABASE_URL },
    keyStore: { url: keyStoreUrl(parsed.DATABASE_URL, parsed.KEYSTORE_DATABASE_URL), masterKeys },
    redis: { url: parsed.REDIS_URL, keyPrefix: parsed.REDIS_KEY_PREFIX },
    amqp: {
      url: parsed.AMQP_URL,
      prefix: parsed.AMQP_PREFIX,
      prefetch: parsed.AMQP_PREFETCH ?? APP_DEFAULT_PREFETCH[app],
      maxAttempts: parsed.AMQP_MAX_ATTEMPTS,
      retryDelaysMs: parsed.AMQP_RETRY_DELAYS_MS.split(',').map(Number),
    },
    sandbox: { port: parsed.SANDBOX_PORT },
    dependencyTimeoutMs: parsed.DEPENDENCY_TIMEOUT_MS,
    search: {
      replyTimeoutMs: parsed.SEARCH_REPLY_TIMEOUT_MS,
      openSeconds: parsed.SEARCH_OPEN_SECONDS,
      partnerAnswerGatherMs: parsed.PARTNER_ANSWER_GATHER_MS,
    },
    submitAnswerTimeoutMs: parsed.SUBMIT_ANSWER_TIMEOUT_MS,
    shutdownGraceMs: parsed.SHUTDOWN_GRACE_MS,
    shutdownDelayMs: parsed.SHUTDOWN_DELAY_MS,
    catalogCacheMs: parsed.CATALOG_CACHE_MS,
    apiKeyCacheMs: parsed.API_KEY_CACHE_MS,
    retention: { searchDays: parsed.RETENTION_SEARCH_DAYS, messageDays: parsed.RETENTION_MESSAGE_DAYS },
    revocationSendTimeoutMs: parsed.REVOCATION_SEND_TIMEOUT_MS,
  });
}
