export * from './duplicates';
