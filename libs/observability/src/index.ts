export * from './redact';
export * from './correlation';
export * from './logger.module';
export * from './metrics';
export * from './health';
export * from './bootstrap';
export * from './periodic-reading';
