import { randomBytes } from 'node:crypto';
import { AppConfig, AppName, loadConfig } from '../../libs/config/src';

/**
 * Tests own their state (DEVELOPERS.md): their own database, a Redis db index
 * and key prefix, and a RabbitMQ vhost plus a queue prefix per test file, so a
 * running system and the test suite on the same machine never disturb each other.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/leadrouter_test';
/** Each of these can be overridden, so two developers' test runs on one machine can use separate state. */
export const TEST_AMQP_VHOST = process.env.TEST_AMQP_VHOST ?? 'leadrouter_test';
export const TEST_AMQP_URL = process.env.TEST_AMQP_URL ?? `amqp://guest:guest@127.0.0.1:5672/${TEST_AMQP_VHOST}`;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

/** A short unique token for this test file's prefixes. */
export function uniqueSuffix(): string {
  return randomBytes(4).toString('hex');
}

/** Environment variables for a test process (an app under test, or loadConfig in-process). */
export function testEnv(suffix: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: `test:${suffix}:`,
    AMQP_URL: TEST_AMQP_URL,
    AMQP_PREFIX: `t${suffix}`,
    AMQP_RETRY_DELAYS_MS: '100,200,300',
    AMQP_MAX_ATTEMPTS: '3',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

export function testConfig(app: AppName, suffix: string, extra: Record<string, string> = {}): AppConfig {
  return loadConfig(app, testEnv(suffix, extra));
}
