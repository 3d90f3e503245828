import { Module, Type } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AppConfig, ConfigModule } from '@lr/config';
import { HealthModule, ObservabilityLoggerModule } from '@lr/observability';
import { ExchangeController } from './exchange/exchange.controller';
import { PartnerSearch } from './partners/partner-search';
import { PartnersController } from './partners/partners.controller';
import { IndexController } from './received/index.controller';
import { ReceivedController } from './received/received.controller';
import { RevocationsController } from './revocations/revocations.controller';
import { RevocationStore } from './revocations/revocation-store';
import { SchoolsController } from './schools/schools.controller';
import { IdempotencyStore } from './shared/idempotency-store';
import { InvalidParamFilter } from './shared/invalid-param.filter';
import { LeadReceiver } from './shared/lead-receiver';
import { PendingRequests } from './shared/pending-requests';
import { ReceivedStore } from './shared/received-store';
import { DEFAULT_SANDBOX_OPTIONS, SANDBOX_OPTIONS, SandboxOptions } from './shared/sandbox-options';

/**
 * The sandbox's root module for one config. A class per call (not a dynamic
 * module) because startHttpApp takes a module class. No readiness checks: the
 * sandbox depends on nothing.
 */
export function sandboxModule(config: AppConfig, options: Partial<SandboxOptions> = {}): Type<unknown> {
  @Module({
    imports: [ConfigModule.forRoot(config), ObservabilityLoggerModule.forRoot(config), HealthModule.forRoot()],
    controllers: [IndexController, SchoolsController, PartnersController, ExchangeController, ReceivedController, RevocationsController],
    providers: [
      { provide: SANDBOX_OPTIONS, useValue: { ...DEFAULT_SANDBOX_OPTIONS, ...options } },
      { provide: APP_FILTER, useClass: InvalidParamFilter },
      ReceivedStore,
      IdempotencyStore,
      PendingRequests,
      LeadReceiver,
      PartnerSearch,
      RevocationStore,
    ],
  })
  class SandboxModule {}
  return SandboxModule;
}
