import { DataKeys1765300000000 } from './1765300000000-data-keys';

/** The key store's migrations (its own database, its own `schema_migrations`), in order. */
export const KEYSTORE_MIGRATIONS = [DataKeys1765300000000];
