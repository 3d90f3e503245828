/**
 * Transaction advisory locks on the names of a text[] expression, in one
 * statement and one sorted order: two transactions that lock overlapping
 * names never wait on each other in a cycle. Names are namespaced by their
 * user (`sale-group:…`, `dedupe:…`, `opt-out:…`).
 */
export const locksOn = (names: string) =>
  `SELECT count(pg_advisory_xact_lock(h)) FROM (SELECT hashtextextended(n, 0) AS h FROM unnest(${names}) AS n ORDER BY 1) AS sorted`;
