export * from './test-mode';
