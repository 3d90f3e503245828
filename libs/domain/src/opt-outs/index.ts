export * from './opt-outs';
