export * from './cipher';
export * from './key-wrapper';
export * from './contact-sealer';
export * from './rewrap';
