import { DataSource } from 'typeorm';
import { ConfigKeyWrapper, ContactSealer, createDataSource, DataKeys } from '@lr/persistence';
import { CliError } from './cli-error';
import type { CliContext } from './context';

/** The URL without its password, for messages. */
export function redactUrl(url: string, variable = 'DATABASE_URL'): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return `(unparsable ${variable})`;
  }
}

/**
 * Opens a short-lived connection for one command and always closes it. A
 * statement may take 40 s, or `statementTimeoutMs` for a command that counts
 * or moves a whole day of searches (retention, storage); connecting, 10 s.
 */
export async function withDatabase<T>(
  url: string,
  fn: (ds: DataSource) => Promise<T>,
  opts: { statementTimeoutMs?: number } = {},
): Promise<T> {
  const timeoutMs = opts.statementTimeoutMs === undefined ? 10000 : opts.statementTimeoutMs / 4;
  const ds = createDataSource({ url, poolSize: 2, timeoutMs, poolWaitMs: 10000, applicationName: 'lead-router-ops' });
  try {
    await ds.initialize();
  } catch (e) {
    throw new CliError(`cannot connect to PostgreSQL at ${redactUrl(url)}: ${(e as Error).message}`);
  }
  try {
    return await fn(ds);
  } catch (e) {
    throw explainDatabaseError(e);
  } finally {
    await ds.destroy().catch(() => undefined);
  }
}

function explainDatabaseError(e: unknown): unknown {
  const code = (e as { code?: string }).code;
  if (code === '42P01') {
    return new CliError(`the database is not migrated (${(e as Error).message}); run: npm run ops -- db migrate`);
  }
  return e;
}

/** The key store's contact sealer for one command (docs/security.md): its own database, the configured master keys. */
export function withSealer<T>(ctx: CliContext, fn: (sealer: ContactSealer, keys: DataKeys) => Promise<T>): Promise<T> {
  return withDatabase(ctx.keyStoreUrl(), (ds) => {
    const keys = new DataKeys(ds);
    return fn(new ContactSealer(keys, new ConfigKeyWrapper(ctx.masterKeys())), keys);
  });
}
