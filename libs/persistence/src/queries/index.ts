export * from './queryable';
