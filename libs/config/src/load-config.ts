import 'reflect-metadata';
import { readFileSync } from 'node:fs';
// By path, not @lr/domain: the test tiers' global set-up loads this file with no @lr/ paths resolved.
import { PERSON_KEY_SECRET_MIN_LENGTH, personKeySecret, PersonKeySecret } from '../../domain/src/normalize/person-key';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  APP_DEFAULT_PORTS,
  APP_DEFAULT_PREFETCH,
  AppConfig,
  AppName,
  GATEWAY_DEFAULT_MANAGEMENT_PORT,
  SANDBOX_DEFAULT_MANAGEMENT_PORT,
} from './app-config';
import { DEVELOPMENT_PERSON_KEY_SECRET } from './development-secrets';
import { EnvironmentVariables } from './env.schema';
import { keyStoreUrl, parseMasterKeys } from './master-keys';

export class ConfigError extends Error {}

/**
 * The apps that seal or open contact data (docs/security.md, Encryption at
 * rest): in production they refuse to start without DATA_MASTER_KEYS (the
 * development key is published). The search-orchestrator stores what the
 * gateway sealed without opening it, and the sandbox plays outside systems.
 */
const SEALING_APPS: readonly AppName[] = ['gateway', 'checks', 'delivery', 'partner-adapter', 'ops'];

/**
 * Reads and validates the environment once. Throws a ConfigError naming every
 * bad variable, so a misconfigured service stops at start-up, not mid-request.
 */
export function loadConfig(app: AppName, env: NodeJS.ProcessEnv = process.env): AppConfig {
  const optional = [
    'HTTP_PORT',
    'AMQP_PREFETCH',
    'MANAGEMENT_PORT',
    'PERSON_KEY_SECRET',
    'PERSON_KEY_SECRET_FILE',
    'KEYSTORE_DATABASE_URL',
    'DATA_MASTER_KEYS',
    'DATA_MASTER_KEYS_FILE',
    'DATA_MASTER_KEY_ID',
  ];
  const known = Object.keys(new EnvironmentVariables()).concat(optional);
  const raw: Record<string, string> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = plainToInstance(EnvironmentVariables, raw, { exposeDefaultValues: true });
  const errors = validateSync(parsed, { skipMissingProperties: false, forbidUnknownValues: false });
  const bad = errors.filter((e) => !(optional.includes(e.property) && e.value === undefined));
  const secret = personKeySecretOf(parsed, app);
  const masterKeys = parseMasterKeys(
    { keys: parsed.DATA_MASTER_KEYS, file: parsed.DATA_MASTER_KEYS_FILE, currentId: parsed.DATA_MASTER_KEY_ID },
    SEALING_APPS.includes(app) && parsed.NODE_ENV === 'production',
  );
  if (bad.length > 0 || typeof secret === 'string' || 'error' in masterKeys) {
    // A secret's or a key's value is never echoed: only the variable and what is wrong with it.
    const lines = bad.map((e) =>
      e.property.startsWith('DATA_MASTER_KEYS')
        ? `${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`
        : `${e.property}=${JSON.stringify(e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`,
    );
    if (typeof secret === 'string') lines.push(secret);
    if ('error' in masterKeys) lines.push(masterKeys.error);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  if (parsed.HEADERS_TIMEOUT_MS > parsed.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(`Invalid configuration:\n  HEADERS_TIMEOUT_MS=${parsed.HEADERS_TIMEOUT_MS}: must not exceed REQUEST_TIMEOUT_MS`);
  }
  const httpPort = app === 'gateway' ? parsed.PORT : app === 'sandbox' ? parsed.SANDBOX_PORT : (parsed.HTTP_PORT ?? APP_DEFAULT_PORTS[app]);
  const managementPort =
    app === 'gateway'
      ? (parsed.MANAGEMENT_PORT ?? GATEWAY_DEFAULT_MANAGEMENT_PORT)
      : app === 'sandbox'
        ? (parsed.MANAGEMENT_PORT ?? SANDBOX_DEFAULT_MANAGEMENT_PORT)
        : httpPort;
  return Object.freeze({
    app,
    env: parsed.NODE_ENV as AppConfig['env'],
    httpPort,
    managementPort,
    host: parsed.HOST,
    trustProxy: trustProxyOf(parsed.TRUST_PROXY),
    connections: {
      requestTimeoutMs: parsed.REQUEST_TIMEOUT_MS,
      headersTimeoutMs: parsed.HEADERS_TIMEOUT_MS,
      idleTimeoutMs: parsed.CONNECTION_IDLE_TIMEOUT_MS,
      maxPerAddress: parsed.MAX_CONNECTIONS_PER_ADDRESS,
    },
    unauthenticated: {
      perMinute: parsed.UNAUTHENTICATED_PER_MINUTE,
      burst: parsed.UNAUTHENTICATED_BURST,
      unknownKeyCacheMs: parsed.UNKNOWN_KEY_CACHE_MS,
    },
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
    personKeySecret: secret.secret,
  });
}

/**
 * The person key secret, or the problem with it in words that never repeat
 * the secret. Required in production, but by the sandbox: it simulates
 * schools and partners, stores nothing and makes no person key.
 */
function personKeySecretOf(env: EnvironmentVariables, app: AppName): { secret: PersonKeySecret } | string {
  const { PERSON_KEY_SECRET: value, PERSON_KEY_SECRET_FILE: file } = env;
  if (value !== undefined && file !== undefined) return 'PERSON_KEY_SECRET and PERSON_KEY_SECRET_FILE: set one, not both';
  let text = value;
  if (file !== undefined) {
    try {
      text = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (e) {
      return `PERSON_KEY_SECRET_FILE=${JSON.stringify(file)}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  }
  if (text === undefined) {
    if (env.NODE_ENV === 'production' && app !== 'sandbox') return 'PERSON_KEY_SECRET: required in production (or PERSON_KEY_SECRET_FILE)';
    text = DEVELOPMENT_PERSON_KEY_SECRET;
  }
  if (text.length < PERSON_KEY_SECRET_MIN_LENGTH)
    return `${file !== undefined ? 'PERSON_KEY_SECRET_FILE' : 'PERSON_KEY_SECRET'}: at least ${PERSON_KEY_SECRET_MIN_LENGTH} characters (its value is not shown)`;
  return { secret: personKeySecret(text) };
}

/** TRUST_PROXY as Fastify's trustProxy: never `true` (every X-Forwarded-For believed, so any caller picks its address). */
function trustProxyOf(value: string): AppConfig['trustProxy'] {
  const v = value.trim();
  if (v === '') return false;
  if (/^\d+$/.test(v)) return Number(v) === 0 ? false : Number(v);
  return v.split(',').map((s) => s.trim());
}
