import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { mediumDataSource } from '../../../../test/support/medium-world';
import { inTransaction, literal, poolOf, run, statement } from './sql';

/**
 * The statement helpers against the real PostgreSQL (medium tier): a literal
 * reads back exactly as the bound parameter would; a transaction's opening
 * and closing strings run in one round trip each, with their own snapshots,
 * and an error in the closing one commits nothing.
 */

let ds: DataSource;
let pool: Pool;
const table = `sql_spec_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

beforeAll(async () => {
  ds = await mediumDataSource(4);
  pool = poolOf(ds);
  await ds.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v text NOT NULL)`);
});

afterAll(async () => {
  await ds?.query(`DROP TABLE IF EXISTS ${table}`);
  await ds?.destroy();
});

/** Every parameter type the repositories bind, read back as text both ways. */
const ECHO = statement(
  'sqlSpecEcho',
  `SELECT $1::text AS t, $2::jsonb::text AS j, $3::text[]::text AS a, $4::timestamptz::text AS ts, $5::int AS i, $6::boolean AS b, $7::numeric::text AS n, $8::uuid[]::text AS u`,
);

describe('literal', () => {
  it('reads back as the bound parameter does, for any text, JSON, text array, date, number, boolean and null', async () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom("'", "''", '\\', "\\'", "E'x'", '$1', '{"a",}', ';COMMIT;', 'NULL'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          t: fc.option(text.filter((s) => !s.includes('\u0000'))),
          j: fc.option(
            fc
              .jsonValue()
              .map((v) => JSON.parse(JSON.stringify(v)) as unknown)
              .filter((v) => !JSON.stringify(v).includes('\\u0000')),
          ),
          a: fc.array(
            fc.option(
              text.filter((s) => !s.includes('\u0000')),
              { nil: null },
            ),
          ),
          ts: fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
          i: fc.integer({ min: -1_000_000, max: 1_000_000 }),
          b: fc.boolean(),
          n: fc.constantFrom('0.00', '12.34', '-1.5', '99999999.99'),
          u: fc.array(fc.uuid(), { maxLength: 3 }),
        }),
        async (p) => {
          const values = [p.t, p.j === null ? null : JSON.stringify(p.j), p.a, p.ts, p.i, p.b, p.n, p.u];
          const bound = await run(ds, ECHO, values);
          const client = await pool.connect();
          try {
            const inlined = await client.query(
              `SELECT * FROM (${ECHO.text.replace(/\$(\d+)/g, (_, k: string) => literal(values[Number(k) - 1]))}) x`,
            );
            expect(inlined.rows).toEqual(bound);
          } finally {
            client.release();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("the services' connections", () => {
  it('plan prepared statements generically (genericPlans), as the services connect', async () => {
    expect(await ds.query('SHOW plan_cache_mode')).toEqual([{ plan_cache_mode: 'force_generic_plan' }]);
  });
});

describe('inTransaction', () => {
  const INSERT = statement('sqlSpecInsert', `INSERT INTO ${table} (id, v) VALUES ($1, $2) RETURNING id, v`);

  it('runs BEGIN with its opening statements, and the closing statements with COMMIT, each string in one query', async () => {
    const seen: string[] = [];
    const rows = await inTransaction(pool, async (tx) => {
      const query = tx.client.query.bind(tx.client);
      (tx.client as unknown as { query: unknown }).query = (...args: Parameters<typeof query>) => {
        seen.push(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text);
        return query(...args);
      };
      const opened = await tx.begin(`SELECT 1 AS n`, `SELECT 2 AS n`);
      expect(opened).toEqual([{ n: 2 }]);
      const insert = await tx.execute(INSERT, [1, "it's \\ written"]);
      const written = await tx.commit(insert);
      (tx.client as unknown as { query: unknown }).query = query;
      return written;
    });
    expect(rows).toEqual([{ id: 1, v: "it's \\ written" }]);
    // The PREPARE goes alone (once per connection); then one string opens, one closes.
    expect(seen.filter((q) => !q.startsWith('PREPARE'))).toEqual([
      'BEGIN;\nSELECT 1 AS n;\nSELECT 2 AS n',
      expect.stringMatching(/^EXECUTE lx_[0-9a-f]{24}\('1', +E'it''s \\\\ written'\);\nCOMMIT$/),
    ]);
    expect(await ds.query(`SELECT v FROM ${table} WHERE id = 1`)).toEqual([{ v: "it's \\ written" }]);
  });

  it('prepares a statement once per connection for EXECUTE', async () => {
    const clients = new Set<unknown>();
    let prepares = 0;
    for (let id = 10; id < 20; id++) {
      await inTransaction(pool, async (tx) => {
        clients.add(tx.client);
        const query = tx.client.query.bind(tx.client);
        (tx.client as unknown as { query: unknown }).query = (...args: Parameters<typeof query>) => {
          if (typeof args[0] === 'string' && args[0].startsWith('PREPARE')) prepares++;
          return query(...args);
        };
        try {
          await tx.commit(await tx.execute(INSERT, [id, 'x']));
        } finally {
          (tx.client as unknown as { query: unknown }).query = query;
        }
      });
    }
    expect(prepares).toBeLessThanOrEqual(clients.size);
    expect(clients.size).toBeLessThan(10);
    expect(await ds.query(`SELECT count(*)::int AS n FROM ${table} WHERE id BETWEEN 10 AND 19`)).toEqual([{ n: 10 }]);
  });

  it('commits nothing when a closing statement fails (the COMMIT after it is skipped), and rolls back', async () => {
    await expect(
      inTransaction(pool, async (tx) => {
        await tx.begin(await tx.execute(INSERT, [100, 'first']));
        await tx.commit(await tx.execute(INSERT, [101, 'second']), `SELECT 1 / 0`);
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await ds.query(`SELECT id FROM ${table} WHERE id IN (100, 101)`)).toEqual([]);
    // The client went back to the pool usable, outside any transaction.
    const rows = await inTransaction(pool, async (tx) => tx.commit(await tx.execute(INSERT, [102, 'after'])));
    expect(rows).toEqual([{ id: 102, v: 'after' }]);
  });

  it('rolls back when the work throws after BEGIN, and commits what the work left open when it returns', async () => {
    await expect(
      inTransaction(pool, async (tx) => {
        await tx.begin(await tx.execute(INSERT, [200, 'x']));
        throw new Error('the rules refused');
      }),
    ).rejects.toThrow('the rules refused');
    await inTransaction(pool, async (tx) => {
      await tx.begin(await tx.execute(INSERT, [201, 'kept']));
    });
    expect(await ds.query(`SELECT id FROM ${table} WHERE id IN (200, 201) ORDER BY id`)).toEqual([{ id: 201 }]);
  });

  it('fails the work when its connection is killed mid-transaction, without ending the process, and the pool serves on', async () => {
    await expect(
      inTransaction(pool, async (tx) => {
        const [{ pid }] = (await tx.begin('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
        await ds.query('SELECT pg_terminate_backend($1)', [pid]);
        // The client hears its connection end while it is checked out and idle.
        await new Promise((r) => setTimeout(r, 300));
        await tx.commit(await tx.execute(INSERT, [400, 'never']));
      }),
    ).rejects.toThrow();
    expect(await ds.query(`SELECT id FROM ${table} WHERE id = 400`)).toEqual([]);
    expect(await run(ds, statement('sqlSpecOne', 'SELECT 1 AS one'))).toEqual([{ one: 1 }]);
  });

  it('gives each statement of an opening string its own snapshot: a row committed while an earlier statement waited on a lock is read', async () => {
    const holder = await pool.connect();
    await holder.query(`BEGIN; SELECT pg_advisory_xact_lock(4242)`);
    const reading = inTransaction(pool, async (tx) =>
      tx.begin(`SELECT pg_advisory_xact_lock(4242)`, `SELECT (SELECT v FROM ${table} WHERE id = 300) AS v`),
    );
    await new Promise((r) => setTimeout(r, 200));
    await holder.query(`INSERT INTO ${table} (id, v) VALUES (300, 'committed meanwhile'); COMMIT`);
    holder.release();
    expect(await reading).toEqual([{ v: 'committed meanwhile' }]);
  });
});
