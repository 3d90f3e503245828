import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { PartnerRef, PartnerSearchRequestedV1 } from '@lr/contracts';
import type { AmqpConnection } from '@lr/messaging';
import { createSandboxApp, RunningSandbox } from '../../../apps/sandbox/src/sandbox-app';
import { PartnerAdapterRegistry } from '../../../apps/partner-adapter/src/adapters/adapter-registry';
import { BreakerSettings, PartnerCircuitBreakers } from '../../../apps/partner-adapter/src/calls/circuit-breakers';
import { PartnerCalls } from '../../../apps/partner-adapter/src/calls/partner-calls';
import { SearchPartner } from '../../../apps/partner-adapter/src/search-partner/search-partner.usecase';
import { testConfig, uniqueSuffix } from '../../support/test-env';

// Timeouts, errors and open circuits are what these tests provoke; PARTNER_TEST_LOGS=1 shows their log lines.
if (!process.env.PARTNER_TEST_LOGS) Logger.overrideLogger(false);

/** The sandbox in-process on a free port, with quiet logs. */
export function startSandbox(): Promise<RunningSandbox> {
  return createSandboxApp({ port: 0, config: testConfig('sandbox', uniqueSuffix(), { LOG_LEVEL: 'error' }) });
}

export const OFFERS = [
  { offerId: randomUUID(), externalId: 'westlake-001' },
  { offerId: randomUUID(), externalId: 'harbor-002' },
  { offerId: randomUUID(), externalId: 'summit-003' },
  { offerId: randomUUID(), externalId: 'pine-valley-004' },
  { offerId: randomUUID(), externalId: 'lakeshore-005' },
];

/** A sandbox partner under a name no other test uses, as the catalog snapshots it into a request. */
export function sandboxPartner(sandbox: RunningSandbox, query: string, overrides: Partial<PartnerRef> = {}): PartnerRef {
  const name = `pa-${uniqueSuffix()}`;
  return { id: randomUUID(), name, adapter: 'sandbox', baseUrl: `${sandbox.url}/partners/${name}?${query}`, timeoutMs: 2_000, ...overrides };
}

/** The sandbox partner name a PartnerRef points at. */
export function sandboxName(partner: PartnerRef): string {
  return new URL(partner.baseUrl).pathname.split('/').pop() as string;
}

export function searchRequest(partner: PartnerRef, opts: { closesInMs?: number; offers?: typeof OFFERS } = {}): PartnerSearchRequestedV1 {
  return {
    searchId: randomUUID(),
    partner,
    offers: opts.offers ?? OFFERS.slice(0, 3),
    lead: { personal: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' }, address: { state: 'CA' } },
    tracking: { sub_id: 's1' },
    isTest: true,
    closesAt: new Date(Date.now() + (opts.closesInMs ?? 45_000)).toISOString(),
  };
}

export interface PartnerReceipts {
  search_total_received: number;
  total_received: number;
  leads: Array<{ outcome: string; headers: Record<string, string>; body: Record<string, unknown> }>;
  searches: Array<{ body: Record<string, unknown> }>;
}

/** What the sandbox recorded for a partner. */
export async function received(sandbox: RunningSandbox, partner: PartnerRef): Promise<PartnerReceipts> {
  const res = await fetch(`${sandbox.url}/partners/${sandboxName(partner)}/received`);
  return (await res.json()) as PartnerReceipts;
}

/** The service as main.ts wires it, with the sandbox adapter and a publisher that records what it would send. */
export function partnerSearchService(breaker: Partial<BreakerSettings> = {}) {
  const published: Array<{ type: string; payload: unknown; opts: unknown }> = [];
  const amqp = { publish: async (type: string, payload: unknown, opts: unknown) => void published.push({ type, payload, opts }) };
  const breakers = new PartnerCircuitBreakers(breaker);
  const registry = new PartnerAdapterRegistry();
  const service = new SearchPartner(new PartnerCalls(registry, breakers), amqp as unknown as AmqpConnection);
  return { service, breakers, registry, published };
}

/** The file's sandbox, started before its tests and closed after them; read `.sandbox` inside a test. */
export function useSandbox(): { sandbox: RunningSandbox } {
  const holder = {} as { sandbox: RunningSandbox };
  beforeAll(async () => {
    holder.sandbox = await startSandbox();
  });
  afterAll(() => holder.sandbox.close());
  return holder;
}

/** useSandbox plus a fresh service (and breakers) for each test. */
export function usePartnerSearch(breaker: Partial<BreakerSettings> = {}): { sandbox: RunningSandbox; ctx: ReturnType<typeof partnerSearchService> } {
  const holder = useSandbox() as { sandbox: RunningSandbox; ctx: ReturnType<typeof partnerSearchService> };
  beforeEach(() => {
    holder.ctx = partnerSearchService(breaker);
  });
  afterEach(() => holder.ctx.breakers.onModuleDestroy());
  return holder;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
