export * from './lead-vocabulary';
export * from './lead-input';
export * from './ip-address';
export * from './normalize';
export * from './tracking-input';
export * from './catalog';
export * from './search';
export * from './submit';
