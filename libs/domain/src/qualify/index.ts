export * from './eligibility';
export * from './qualify';
