export * from './opt-outs';
export * from './erasure';
