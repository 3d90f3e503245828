import { MESSAGE_RETENTION, SEARCH_RETENTION } from '../../domain/src/retention';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEVELOPMENT_PERSON_KEY_SECRET } from './development-secrets';
import { loadConfig, ConfigError } from './load-config';

describe('loadConfig', () => {
  it('applies the connection defaults of ARCHITECTURE.md', () => {
    const c = loadConfig('gateway', {});
    expect(c.database.url).toBe('postgres://postgres@127.0.0.1:5432/leadrouter');
    expect(c.redis.url).toBe('redis://127.0.0.1:6379');
    expect(c.amqp.url).toBe('amqp://guest:guest@127.0.0.1:5672');
    expect(c.httpPort).toBe(3000);
    expect(c.sandbox.port).toBe(4100);
    expect(loadConfig('sandbox', {}).httpPort).toBe(4100);
    expect(loadConfig('checks', {}).httpPort).toBe(3003);
  });

  it('reads overrides and parses numbers and lists', () => {
    const c = loadConfig('delivery', { HTTP_PORT: '9999', AMQP_RETRY_DELAYS_MS: '10,20', AMQP_MAX_ATTEMPTS: '3' });
    expect(c.httpPort).toBe(9999);
    expect(c.amqp.retryDelaysMs).toEqual([10, 20]);
    expect(c.amqp.maxAttempts).toBe(3);
  });

  it('gives each worker its own prefetch unless AMQP_PREFETCH says otherwise', () => {
    expect(loadConfig('partner-adapter', {}).amqp.prefetch).toBe(256);
    expect(loadConfig('checks', {}).amqp.prefetch).toBe(32);
    expect(loadConfig('partner-adapter', { AMQP_PREFETCH: '8' }).amqp.prefetch).toBe(8);
    expect(() => loadConfig('checks', { AMQP_PREFETCH: '0' })).toThrow(/AMQP_PREFETCH/);
  });

  it('keeps searches and handled-message records the retention policy’s default days, and refuses fewer than its minimums', () => {
    expect(loadConfig('ops', {}).retention).toEqual({
      searchDays: SEARCH_RETENTION.defaultDays,
      messageDays: MESSAGE_RETENTION.defaultDays,
    });
    const at = (search: number, message: number) =>
      loadConfig('ops', { RETENTION_SEARCH_DAYS: String(search), RETENTION_MESSAGE_DAYS: String(message) }).retention;
    expect(at(SEARCH_RETENTION.minimumDays, MESSAGE_RETENTION.minimumDays)).toEqual({ searchDays: 3, messageDays: 2 });
    expect(() => at(SEARCH_RETENTION.minimumDays - 1, 30)).toThrow(/RETENTION_SEARCH_DAYS=2/);
    expect(() => at(30, MESSAGE_RETENTION.minimumDays - 1)).toThrow(/RETENTION_MESSAGE_DAYS=1/);
    expect(() => loadConfig('ops', { RETENTION_SEARCH_DAYS: '7d' })).toThrow(/RETENTION_SEARCH_DAYS/);
  });

  it('fails fast naming every bad variable', () => {
    expect(() => loadConfig('gateway', { PORT: 'abc', REDIS_URL: 'http://x' })).toThrow(ConfigError);
    try {
      loadConfig('gateway', { PORT: 'abc', REDIS_URL: 'http://x' });
    } catch (e) {
      expect(String((e as Error).message)).toMatch(/PORT="abc"/);
      expect(String((e as Error).message)).toMatch(/REDIS_URL/);
    }
  });

  it('requires the person key secret in production (variable or file), never echoing it; development has a fixed one', () => {
    expect(() => loadConfig('gateway', { NODE_ENV: 'production' })).toThrow(/PERSON_KEY_SECRET: required in production/);
    expect(loadConfig('sandbox', { NODE_ENV: 'production' }).personKeySecret).toBe(DEVELOPMENT_PERSON_KEY_SECRET);
    expect(loadConfig('checks', {}).personKeySecret).toBe(DEVELOPMENT_PERSON_KEY_SECRET);
    const secret = 'p'.repeat(40);
    const keys = { DATA_MASTER_KEYS: `m:${Buffer.alloc(32, 7).toString('base64')}` };
    expect(loadConfig('checks', { NODE_ENV: 'production', PERSON_KEY_SECRET: secret, ...keys }).personKeySecret).toBe(secret);
    const dir = mkdtempSync(join(tmpdir(), 'person-key-'));
    writeFileSync(join(dir, 'secret'), `${secret}\n`);
    expect(loadConfig('ops', { NODE_ENV: 'production', PERSON_KEY_SECRET_FILE: join(dir, 'secret'), ...keys }).personKeySecret).toBe(
      secret,
    );
    expect(() => loadConfig('ops', { PERSON_KEY_SECRET: secret, PERSON_KEY_SECRET_FILE: join(dir, 'secret') })).toThrow(/not both/);
    const short = 'shortsecretvalue';
    expect(() => loadConfig('ops', { PERSON_KEY_SECRET: short })).toThrow(/at least 32 characters/);
    expect(() => loadConfig('ops', { PERSON_KEY_SECRET: short })).not.toThrow(new RegExp(short));
    rmSync(dir, { recursive: true });
  });
});

describe('master keys (DATA_MASTER_KEYS, DATA_MASTER_KEY_ID, KEYSTORE_DATABASE_URL)', () => {
  const k1 = Buffer.alloc(32, 1).toString('base64');
  const k2 = Buffer.alloc(32, 2).toString('base64');

  it('reads id:key pairs, the current id (default the first), and the key store beside the database', () => {
    const c = loadConfig('delivery', {
      DATA_MASTER_KEYS: `a:${k1},b:${k2}`,
      DATA_MASTER_KEY_ID: 'b',
      DATABASE_URL: 'postgres://u@h:5432/lr',
    });
    expect(c.keyStore.masterKeys.currentId).toBe('b');
    expect([...c.keyStore.masterKeys.keys.keys()]).toEqual(['a', 'b']);
    expect(c.keyStore.url).toBe('postgres://u@h:5432/lr_keys');
    expect(loadConfig('delivery', { DATA_MASTER_KEYS: `a:${k1},b:${k2}` }).keyStore.masterKeys.currentId).toBe('a');
    expect(loadConfig('delivery', { KEYSTORE_DATABASE_URL: 'postgres://k@h/keys' }).keyStore.url).toBe('postgres://k@h/keys');
  });

  it('requires master keys in production of every app that seals or opens contact data, not of the orchestrator or the sandbox', () => {
    const production = { NODE_ENV: 'production', PERSON_KEY_SECRET: 'p'.repeat(40) };
    for (const app of ['gateway', 'checks', 'delivery', 'partner-adapter', 'ops'] as const) {
      expect(() => loadConfig(app, production)).toThrow(/DATA_MASTER_KEYS: required in production/);
      expect(loadConfig(app, { ...production, DATA_MASTER_KEYS: `m:${k1}` }).keyStore.masterKeys.currentId).toBe('m');
    }
    expect(() => loadConfig('search-orchestrator', production)).not.toThrow();
    expect(() => loadConfig('sandbox', { NODE_ENV: 'production' })).not.toThrow();
  });

  it('refuses a bad master key naming the variable, never the key', () => {
    expect(() => loadConfig('delivery', { DATA_MASTER_KEYS: 'a:c2hvcnQ=' })).toThrow(/the key of a must be 32 bytes/);
    expect(() => loadConfig('delivery', { DATA_MASTER_KEYS: `a:${k1}`, DATA_MASTER_KEY_ID: 'b' })).toThrow(
      /DATA_MASTER_KEY_ID: b is not listed/,
    );
    expect(() => loadConfig('delivery', { DATA_MASTER_KEYS: `a:${k1}`, DATA_MASTER_KEY_ID: 'b' })).not.toThrow(new RegExp(k1.slice(0, 10)));
    expect(() => loadConfig('delivery', { DATA_MASTER_KEYS_FILE: '/nonexistent/keys' })).toThrow(/DATA_MASTER_KEYS_FILE: cannot read/);
  });
});
