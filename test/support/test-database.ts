import { Client } from 'pg';

/** The test database's URL with a suffix on its name: a database of one test file's own (e.g. `_retention`). */
export function ownDatabaseUrl(base: string, suffix: string): string {
  const u = new URL(base);
  u.pathname = `${u.pathname}${suffix}`;
  return u.toString();
}

/** Drops the database of `url` (connections ended), refusing a name that does not say `mark` (test, medium). */
export async function dropDatabase(url: string, mark = 'test'): Promise<void> {
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  if (!name.includes(mark)) throw new Error(`refusing to drop ${name}: its name does not say ${mark}`);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    // Its key store (KEYSTORE_DATABASE_URL's default, beside it) goes with it.
    await client.query(`DROP DATABASE IF EXISTS "${name}_keys" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
