export * from './opt-outs';
export * from './erasure';
export * from './revocation-notice';
export * from './reversal';
