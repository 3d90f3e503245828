import { DataSource } from 'typeorm';
import { createDataSource } from '@lr/persistence';
import { CliError } from './cli-error';

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

/** Opens a short-lived connection for one command and always closes it. */
export async function withDatabase<T>(url: string, fn: (ds: DataSource) => Promise<T>): Promise<T> {
  const ds = createDataSource({ url, poolSize: 2, timeoutMs: 10000, applicationName: 'lead-router-ops' });
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
