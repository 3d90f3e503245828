export * from './opt-outs';
export * from './revocation-notice';
