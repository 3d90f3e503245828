export * from './mapping-errors';
export * from './mapping.types';
export * from './json-path';
export * from './field-map';
export * from './response-rules';
export * from './header-templates';
export * from './documents';
export * from './storable-text';
