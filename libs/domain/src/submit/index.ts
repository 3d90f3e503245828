export * from './answers';
export * from './lead-merge';
export * from './sale-rules';
