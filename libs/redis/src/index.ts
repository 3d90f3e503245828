export * from './redis-client';
export * from './token-bucket';
export * from './key-events';
