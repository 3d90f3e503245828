export * from './catalog-vocabulary';
export * from './catalog.types';
export { validateCatalog } from './validate-catalog';
export type { CatalogValidation } from './validate-catalog';
export { ELIGIBILITY_KEYS } from './validate-eligibility';
export * from './campaign-offer';
export * from './buyer-idempotency';
