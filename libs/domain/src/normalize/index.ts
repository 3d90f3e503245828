export * from './normalize';
export * from './dedupe-keys';
