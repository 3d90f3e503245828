export * from './search-state';
export * from './search-answer';
export * from './search-state-store';
export * from './search-state.publisher';
export * from './search-state.reader';
