export * from './redis-client';
export * from './token-bucket';
export * from './search-state-store';
export * from './key-events';
