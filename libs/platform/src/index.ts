export * from './database.module';
export * from './redis.module';
export * from './worker';
export * from './campaign-catalog';
export * from './http/post-json';
export * from './http/mock-dispatcher';
export * from './search-state.publisher';
export * from './search-offer-checks';
