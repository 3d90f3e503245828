export * from './search-view';
export * from './untrusted-text';
