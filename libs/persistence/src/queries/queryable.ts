import { DataSource, EntityManager } from 'typeorm';

/** Anything that runs SQL: the data source, or a transaction's entity manager. */
export type Queryable = DataSource | EntityManager;

/**
 * The rows of a statement with RETURNING. TypeORM's pg driver answers
 * `[rows, affectedCount]` for UPDATE and DELETE but plain rows for INSERT and
 * SELECT; this takes either.
 */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
