export * from './sale-rules';
