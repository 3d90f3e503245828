export * from './data-source';
export * from './ensure-database';
export * from './migrate';
export * from './queries';
export * from './repositories';
export { allMigrations, MIGRATIONS } from './migrations';
export * from './partitions/partition-days';
export * from './keys';
export { KEYSTORE_MIGRATIONS } from './migrations/keystore';
