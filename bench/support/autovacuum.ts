import { Client } from 'pg';

/** How often the stand-in looks at the tables (autovacuum_naptime is a minute; a bench phase lasts seconds). */
const INTERVAL_MS = 2_000;

/**
 * What autovacuum does on a live database, for a bench on a server that runs
 * without it (this machine's PostgreSQL has autovacuum off, for the tests'
 * sake): every INTERVAL_MS, each table past the server's own autovacuum
 * thresholds is analyzed (rows changed since the last ANALYZE over
 * autovacuum_analyze_threshold + autovacuum_analyze_scale_factor x rows) or
 * vacuumed and analyzed (dead rows over the vacuum threshold and scale factor).
 *
 * Without it a bench measures a database no deployment has: the services
 * prepare their statements and plan them generically once per connection, on
 * tables that are empty when the bench starts, so a lookup by key is planned
 * as a sequential scan of a table of a few rows and stays one while the table
 * grows to thousands (the plan is only made again when ANALYZE changes the
 * table's statistics). On a live database autovacuum analyzes a table after
 * its first 50 changes and keeps its statistics current.
 *
 * Its own work (a few ms of PostgreSQL now and then) counts in the machine's
 * CPU of whichever side is being measured, as autovacuum's would.
 */
function standIn(databaseUrl: string, log: (msg: string) => void): { stop(): Promise<void> } {
  const pg = new Client({ connectionString: databaseUrl });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let runs = 0;
  // A connection the server ends (another bench dropping the database, a restart) is reported, not an uncaught
  // 'error' event that would kill the bench before its clean-up stops the apps; the next round's query then fails.
  pg.on('error', (e) => log(`autovacuum stand-in: ${e.message}`));
  const connected = pg.connect();
  const round = async () => {
    const { rows } = await pg.query<{ name: string; vacuum: boolean }>(
      `SELECT format('%I.%I', schemaname, relname) AS name,
              n_dead_tup > current_setting('autovacuum_vacuum_threshold')::int + current_setting('autovacuum_vacuum_scale_factor')::float8 * n_live_tup AS vacuum
         FROM pg_stat_user_tables
        WHERE n_dead_tup > current_setting('autovacuum_vacuum_threshold')::int + current_setting('autovacuum_vacuum_scale_factor')::float8 * n_live_tup
           OR n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::int + current_setting('autovacuum_analyze_scale_factor')::float8 * n_live_tup`,
    );
    for (const r of rows) {
      if (stopped) return;
      await pg.query(`${r.vacuum ? 'VACUUM (ANALYZE)' : 'ANALYZE'} ${r.name}`);
      runs++;
    }
  };
  const schedule = () => {
    timer = setTimeout(() => {
      round()
        .catch((e: unknown) => log(`autovacuum stand-in: ${(e as Error).message}`))
        .finally(() => {
          if (!stopped) schedule();
        });
    }, INTERVAL_MS);
  };
  void connected.then(schedule, (e: unknown) => log(`autovacuum stand-in cannot connect: ${(e as Error).message}`));
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await connected.catch(() => undefined);
      await pg.end().catch(() => undefined);
      log(`autovacuum stand-in: ${runs} tables analyzed or vacuumed`);
    },
  };
}

let running: { stop(): Promise<void> } | undefined;

/** Starts the stand-in on `databaseUrl` (one per bench process; a second call changes nothing). */
export function startAutovacuumStandIn(databaseUrl: string, log: (msg: string) => void): void {
  running ??= standIn(databaseUrl, log);
}

/** Stops the stand-in, if it runs (a bench's clean-up). */
export async function stopAutovacuumStandIn(): Promise<void> {
  const r = running;
  running = undefined;
  await r?.stop();
}
