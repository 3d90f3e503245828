export * from './eligibility';
export * from './payouts';
export * from './ranking';
