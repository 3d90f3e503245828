export * from './decide-submit';
export * from './lead-merge';
