export * from './lead-vocabulary';
export * from './lead-input';
export * from './ip-address';
export * from './tracking-input';
export * from './catalog';
