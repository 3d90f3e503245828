import { Inject, Injectable, Optional } from '@nestjs/common';
import type { PartnerAdapterName } from '@lr/domain';
import type { PartnerAdapter } from './partner-adapter';
import { UnknownAdapterError } from './partner-errors';
import { JsonPartnerAdapter } from './json/json-partner.adapter';
import { SandboxPartnerAdapter } from './sandbox/sandbox-adapter';

/** Overrides the adapters by name (tests); the default is builtInAdapters(). */
export const PARTNER_ADAPTERS = Symbol('PARTNER_ADAPTERS');

/** The catalog's partner `adapter` names this build speaks (the catalog allows exactly these). A new partner interface is one line here. */
export function builtInAdapters(): Record<PartnerAdapterName, PartnerAdapter> {
  return { sandbox: new SandboxPartnerAdapter(), json: new JsonPartnerAdapter() };
}

@Injectable()
export class PartnerAdapterRegistry {
  private readonly adapters: Map<string, PartnerAdapter>;

  constructor(@Optional() @Inject(PARTNER_ADAPTERS) adapters?: Record<string, PartnerAdapter>) {
    this.adapters = new Map(Object.entries(adapters ?? builtInAdapters()));
  }

  /** The adapter the catalog names; UnknownAdapterError when there is none. */
  get(name: string): PartnerAdapter {
    const adapter = this.adapters.get(name);
    if (!adapter) throw new UnknownAdapterError(name);
    return adapter;
  }
}
