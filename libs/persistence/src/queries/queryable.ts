import { DataSource, EntityManager } from 'typeorm';

/** Anything that runs SQL: the data source, or a transaction's entity manager. */
export type Queryable = DataSource | EntityManager;
