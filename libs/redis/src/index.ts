export * from './redis-client';
export * from './token-bucket';
