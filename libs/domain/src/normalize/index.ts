export * from './normalize';
export * from './dedupe-keys';
export * from './person-key';
