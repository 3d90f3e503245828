export * from './api-codes';
export * from './messages';
