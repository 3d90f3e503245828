export * from './database.module';
export * from './repositories.module';
export * from './redis.module';
export * from './worker';
export * from './campaign-catalog';
export * from './key-store.module';
