import { Global, Module, Provider, Type } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  ApiKeyRepository,
  CatalogRepository,
  DedupeIndex,
  IdempotencyKeys,
  LeadRepository,
  LeadReturns,
  OptOuts,
  ProcessedMessages,
  SaleLedger,
  SearchRepository,
} from '@lr/persistence';

/** Every repository is a plain class over the process's DataSource (tests build them the same way, without Nest). */
const REPOSITORIES: Array<Type<unknown> & (new (ds: DataSource) => unknown)> = [
  ApiKeyRepository,
  CatalogRepository,
  DedupeIndex,
  IdempotencyKeys,
  LeadRepository,
  LeadReturns,
  OptOuts,
  ProcessedMessages,
  SaleLedger,
  SearchRepository,
];

const providers: Provider[] = REPOSITORIES.map((R) => ({ provide: R, useFactory: (ds: DataSource) => new R(ds), inject: [DataSource] }));

/** The repositories (libs/persistence), injectable by their class. */
@Global()
@Module({ providers, exports: REPOSITORIES })
export class RepositoriesModule {}
