export * from './retention-policy';
