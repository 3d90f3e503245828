export * from './result-entry';
