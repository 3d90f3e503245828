import { addDays, PARTITIONED_TABLES } from '../partitions/partition-days';

/** Anything that runs a text with parameters: a data source, an entity manager, a migration's query runner, a client. */
export interface Executes {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/**
 * Creates the partition `<table>_<suffix>` of every partitioned table for
 * [from, to) (`to` null: the day after `from`), where missing. The migration,
 * the partition keeper and the history generator (bench) share it. Answers
 * how many it created.
 */
export async function createDayPartitions(q: Executes, p: { from: string; to: string | null; suffix: string }): Promise<number> {
  const to = p.to ?? addDays(p.from, 1);
  let created = 0;
  for (const table of PARTITIONED_TABLES) {
    const name = `${table}_${p.suffix}`;
    const exists = (await q.query(`SELECT 1 FROM pg_class WHERE relname = $1 AND relnamespace = current_schema()::regnamespace`, [
      name,
    ])) as unknown[];
    if (exists.length > 0) continue;
    await q.query(`CREATE TABLE ${name} PARTITION OF ${table} FOR VALUES FROM ('${p.from}') TO ('${to}')`);
    created++;
  }
  return created;
}
