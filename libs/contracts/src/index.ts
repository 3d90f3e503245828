export * from './api-codes';
export * from './messages';
export * from './search-meta';
export * from './result-entry';
export * from './submit-messages';
