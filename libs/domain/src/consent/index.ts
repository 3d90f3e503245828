export * from './consent';
export * from './consent-ledger';
export * from './consent-proof';
