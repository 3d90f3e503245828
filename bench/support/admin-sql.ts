import { Client } from 'pg';

/** Runs one statement on the server's `postgres` database (creating and dropping a bench's own database). */
export async function adminSql(sql: string): Promise<void> {
  const c = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
