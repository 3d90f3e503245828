import type Redis from 'ioredis';

/** Anything that runs SQL: a TypeORM DataSource (answers rows) or a pg client (answers a result with rows). */
interface Queries {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/** The rows a statement answers, from either. */
export async function rowsOf<T>(db: Queries, sql: string, params?: unknown[]): Promise<T[]> {
  const r = await db.query(sql, params);
  return (Array.isArray(r) ? r : (r as { rows: T[] }).rows) as T[];
}

/**
 * Every table of the schema whose rows hold one of `canaries` (compared in
 * lower case), with how many rows do: each plain table and each partition
 * (relkind r: a partitioned table's rows are its partitions'), every column
 * read as the row's text.
 */
export async function tablesHolding(db: Queries, canaries: readonly string[]): Promise<Record<string, number>> {
  const needles = canaries.map((c) => c.toLowerCase());
  const tables = await rowsOf<{ name: string }>(
    db,
    `SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' ORDER BY c.relname`,
  );
  const found: Record<string, number> = {};
  for (const { name } of tables) {
    const [{ n }] = await rowsOf<{ n: number }>(
      db,
      `SELECT count(*)::int AS n FROM "${name}" t WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS c(needle) WHERE strpos(lower(t::text), c.needle) > 0)`,
      [needles],
    );
    if (n > 0) found[name] = n;
  }
  return found;
}

/** How many tables the schema has (each partition counted): what tablesHolding read. */
export async function tableCount(db: Queries): Promise<number> {
  const [{ n }] = await rowsOf<{ n: number }>(
    db,
    `SELECT count(*)::int AS n FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'`,
  );
  return n;
}

/**
 * Every key under `prefix` (SCAN, whatever its type: string, hash, list,
 * set, sorted set) whose value holds one of `canaries`, in lower case. The
 * client must have no key prefix of its own.
 */
export async function redisKeysHolding(
  redis: Redis,
  prefix: string,
  canaries: readonly string[],
): Promise<{ keys: string[]; scanned: number }> {
  const needles = canaries.map((c) => c.toLowerCase());
  const keys: string[] = [];
  let scanned = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of batch) {
      scanned++;
      const text = (await redisValue(redis, key)).toLowerCase();
      if (needles.some((n) => text.includes(n))) keys.push(key);
    }
  } while (cursor !== '0');
  return { keys, scanned };
}

async function redisValue(redis: Redis, key: string): Promise<string> {
  switch (await redis.type(key)) {
    case 'string':
      return (await redis.get(key)) ?? '';
    case 'hash':
      return JSON.stringify(await redis.hgetall(key));
    case 'list':
      return JSON.stringify(await redis.lrange(key, 0, -1));
    case 'set':
      return JSON.stringify(await redis.smembers(key));
    case 'zset':
      return JSON.stringify(await redis.zrange(key, 0, -1));
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'));
    default:
      return '';
  }
}
