export * from './caps';
