export * from './consent';
export * from './consent-ledger';
