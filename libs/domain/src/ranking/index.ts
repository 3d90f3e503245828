export * from './ranking';
export * from './search-outcome';
