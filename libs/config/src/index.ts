export * from './app-config';
export * from './load-config';
export * from './config.module';
export * from './development-secrets';
export * from './master-keys';
