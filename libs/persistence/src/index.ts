export * from './data-source';
export * from './ensure-database';
export * from './migrate';
export * from './run-once';
export * from './entities';
export * from './queries';
export { MIGRATIONS } from './migrations';
export * from './search-state.query';
