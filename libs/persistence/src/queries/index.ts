export * from './queryable';
export * from './api-keys.query';
export * from './catalog.query';
export * from './submit.query';
export * from './search-catalog.query';
export * from './search-checks.query';
export * from './sales.query';
export * from './dupe-check.query';
