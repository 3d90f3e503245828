import { BoundedSearchStorage1764800000000 } from './1764800000000-bounded-search-storage';
import { ProcessedMessages1763700000000 } from './1763700000000-processed-messages';
import { CoreSchema1763800000000 } from './1763800000000-core-schema';
import { SearchFanOut1763900000000 } from './1763900000000-search-fan-out';
import { SubmitSales1764000000000 } from './1764000000000-submit-sales';
import { ReportIndexes1764100000000 } from './1764100000000-report-indexes';
import { SearchPersonKeys1764200000000 } from './1764200000000-search-person-keys';
import { LedgerForeignKeys1764300000000 } from './1764300000000-ledger-foreign-keys';
import { ResultForeignKeys1764400000000 } from './1764400000000-result-foreign-keys';
import { PendingLeadsIndex1764500000000 } from './1764500000000-pending-leads-index';
import { IdempotencyKeys1764600000000 } from './1764600000000-idempotency-keys';
import { UnresolvedDeliveriesIndex1764700000000 } from './1764700000000-unresolved-deliveries-index';
import { ConsentLedger1764900000000 } from './1764900000000-consent-ledger';
import { PartnerSettings1765000000000 } from './1765000000000-partner-settings';
import { OptOuts1765100000000 } from './1765100000000-opt-outs';
import { Returns1765200000000 } from './1765200000000-returns';
import { OptOutReversals1765350000000 } from './1765350000000-opt-out-reversals';
import { keyedPersonKeysMigration } from './1765300000000-keyed-person-keys';
import { SealedContact1765320000000 } from './1765320000000-sealed-contact';
import type { PersonKeySecret } from '@lr/domain';
import type { MigrationInterface } from 'typeorm';

/**
 * The migrations before the first that needs the person key secret, in order. Listed
 * explicitly so bundlers and tsc builds find them without globs.
 */
export const MIGRATIONS: Array<new () => MigrationInterface> = [
  ProcessedMessages1763700000000,
  CoreSchema1763800000000,
  SearchFanOut1763900000000,
  SubmitSales1764000000000,
  ReportIndexes1764100000000,
  SearchPersonKeys1764200000000,
  LedgerForeignKeys1764300000000,
  ResultForeignKeys1764400000000,
  PendingLeadsIndex1764500000000,
  IdempotencyKeys1764600000000,
  UnresolvedDeliveriesIndex1764700000000,
  BoundedSearchStorage1764800000000,
  ConsentLedger1764900000000,
  PartnerSettings1765000000000,
  OptOuts1765100000000,
  Returns1765200000000,
];

/**
 * Every migration, in order: MIGRATIONS, then the one that needs the person
 * key secret (the configuration's: migrateDatabase), then those written after it.
 */
export function allMigrations(secret: PersonKeySecret): Array<new () => MigrationInterface> {
  return [...MIGRATIONS, keyedPersonKeysMigration(secret), SealedContact1765320000000, OptOutReversals1765350000000];
}
