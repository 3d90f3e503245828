export * from './api-codes';
export * from './messages';
export * from './search-state';
export * from './result-entry';
export * from './submit-messages';
export * from './search-answer';
