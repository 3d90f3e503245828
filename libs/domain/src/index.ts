export * from './lead-vocabulary';
