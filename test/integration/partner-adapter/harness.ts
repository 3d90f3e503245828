import { randomUUID } from 'node:crypto';
import * as amqplib from 'amqplib';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PartnerAnswer, PartnerCallRequest, PartnerRef, PartnerSearchAnsweredV2, PartnerSearchRequestedV2 } from '@lr/contracts';
import { AmqpConnection, Topology, queuesOf, startAmqpConsumer, topologyFor } from '@lr/messaging';
import { DEFAULT_SEARCH_FIELDS, partnerSearchView } from '@lr/domain';
import { WorkerModule } from '@lr/platform';
import { createSandboxApp, RunningSandbox } from '../../../apps/sandbox/src/sandbox-app';
import { PartnerAdapterRegistry } from '../../../apps/partner-adapter/src/adapters/adapter-registry';
import { BreakerSettings, PartnerCircuitBreakers } from '../../../apps/partner-adapter/src/calls/circuit-breakers';
import { PartnerCalls } from '../../../apps/partner-adapter/src/calls/partner-calls';
import { PARTNER_ADAPTER_WORKER } from '../../../apps/partner-adapter/src/partner-adapter.worker';
import { SearchPartner } from '../../../apps/partner-adapter/src/search-partner/search-partner.usecase';
import { TEST_AMQP_URL, TEST_DATABASE_URL, testConfig, uniqueSuffix } from '../../support/test-env';
import { keyStoreSealer } from '../../support/medium-world';
import { deleteTopology, waitFor } from '../messaging/support';

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
  return {
    id: randomUUID(),
    name,
    adapter: 'sandbox',
    baseUrl: `${sandbox.url}/partners/${name}?${query}`,
    timeoutMs: 2_000,
    ...overrides,
  };
}

/** The sandbox partner name a PartnerRef points at. */
export function sandboxName(partner: PartnerRef): string {
  return new URL(partner.baseUrl).pathname.split('/').pop() as string;
}

/** A partner's view of a search, as the orchestrator makes it (the default search fields: no contact data). */
const VIEW = partnerSearchView(
  {
    lead: { personal: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' }, address: { state: 'CA' } },
    tracking: { sub_id: 's1' },
  },
  DEFAULT_SEARCH_FIELDS,
  new Date(),
);

/** A search that asks one partner network about its offers. */
export type OnePartnerSearch = Omit<PartnerSearchRequestedV2, 'partners'> & PartnerCallRequest;

/** A search's request for one partner. */
export function searchRequest(partner: PartnerRef, opts: { closesInMs?: number; offers?: typeof OFFERS } = {}): OnePartnerSearch {
  return {
    searchId: randomUUID(),
    campaignId: randomUUID(),
    partner,
    offers: opts.offers ?? OFFERS.slice(0, 3),
    ...VIEW,
    isTest: true,
    closesAt: new Date(Date.now() + (opts.closesInMs ?? 45_000)).toISOString(),
  };
}

/** A search's one request for all its partners, as the orchestrator sends it; a bare PartnerRef is asked about `offers`. */
export function searchRequestAll(
  partners: Array<PartnerRef | PartnerCallRequest>,
  opts: { closesInMs?: number; offers?: typeof OFFERS } = {},
): PartnerSearchRequestedV2 {
  return {
    searchId: randomUUID(),
    campaignId: randomUUID(),
    partners: partners.map((p) => ('partner' in p ? p : { partner: p, offers: opts.offers ?? OFFERS.slice(0, 3), ...VIEW })),
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

/** A message as it reached the orchestrator's queue. */
export interface DeliveredAnswer {
  type: string;
  messageId: string;
  correlationId: string;
  payload: PartnerSearchAnsweredV2;
  /** Date.now() when it was taken off the queue. */
  at: number;
}

/**
 * Stands where the search-orchestrator's consumer stands: takes every message
 * of its queue, in the order the broker delivers them, so a test sees what
 * partner-adapter published, when, and grouped how.
 */
export class OrchestratorQueue {
  private readonly delivered: DeliveredAnswer[] = [];

  private constructor(private readonly connection: amqplib.ChannelModel) {}

  static async open(topology: Topology): Promise<OrchestratorQueue> {
    const connection = await amqplib.connect(TEST_AMQP_URL);
    const queue = new OrchestratorQueue(connection);
    const channel = await connection.createChannel();
    await channel.consume(
      queuesOf(topology, 'search-orchestrator').queue,
      (msg) => {
        if (!msg) return;
        const p = msg.properties;
        queue.delivered.push({
          type: p.type,
          messageId: p.messageId,
          correlationId: p.correlationId,
          payload: JSON.parse(msg.content.toString('utf8')),
          at: Date.now(),
        });
      },
      { noAck: true },
    );
    return queue;
  }

  /** The messages about one search so far. */
  of(searchId: string): DeliveredAnswer[] {
    return this.delivered.filter((m) => m.payload.searchId === searchId);
  }

  /**
   * Waits until `count` messages about the search arrived (or `done` says the
   * ones it waits for did), then a moment longer to catch any that should not.
   */
  async waitFor(
    searchId: string,
    done: number | ((messages: DeliveredAnswer[]) => boolean),
    timeoutMs = 10_000,
  ): Promise<DeliveredAnswer[]> {
    const arrived = typeof done === 'number' ? (messages: DeliveredAnswer[]) => messages.length >= done : done;
    await waitFor(() => arrived(this.of(searchId)), timeoutMs, `the answer messages for search ${searchId}`);
    await new Promise((r) => setTimeout(r, 200));
    return this.of(searchId);
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}

interface BrokerState {
  config: ReturnType<typeof testConfig>;
  answers: OrchestratorQueue;
  /** A connection of the app named (its config and this file's prefix), started; closed after the file. */
  connect: (app?: 'partner-adapter' | 'search-orchestrator') => Promise<AmqpConnection>;
  /** Something to stop after the file, before the connections close and the topology is deleted (a consumer). */
  stopFirst: (stop: () => Promise<void>) => void;
}

/**
 * The file's broker state: its own prefix on the test vhost, the product
 * topology (declared by the first connection, deleted after the file), and
 * the orchestrator's queue read by an OrchestratorQueue.
 */
function useBroker(): BrokerState {
  const suffix = uniqueSuffix();
  const config = testConfig('partner-adapter', suffix, { LOG_LEVEL: 'error' });
  const connections: AmqpConnection[] = [];
  const stops: Array<() => Promise<void>> = [];
  const holder: BrokerState = {
    config,
    answers: undefined as unknown as OrchestratorQueue,
    connect: async (app = 'partner-adapter') => {
      const connection = new AmqpConnection(app === 'partner-adapter' ? config : testConfig(app, suffix), { reconnectDelayMs: 200 });
      connections.push(connection);
      await connection.start();
      return connection;
    },
    stopFirst: (stop) => void stops.push(stop),
  };
  beforeAll(async () => {
    await holder.connect(); // declares the topology before the orchestrator's queue is read
    holder.answers = await OrchestratorQueue.open(topologyFor(config));
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    await holder.answers?.close();
    for (const c of connections) await c.close();
    await deleteTopology(topologyFor(config));
  });
  return holder;
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

interface PartnerSearchContext {
  service: SearchPartner;
  /** The partner's answer to a search that asks it alone, as the one answer message carries it (not published on the broker). */
  answer: (msg: OnePartnerSearch) => Promise<PartnerAnswer & { searchId: string }>;
  breakers: PartnerCircuitBreakers;
  registry: PartnerAdapterRegistry;
}

/**
 * The sandbox, the file's broker state, and for each test a fresh use case
 * (and breakers) as main.ts wires it, publishing on the real broker.
 */
export function usePartnerSearch(breaker: Partial<BreakerSettings> = {}): {
  sandbox: RunningSandbox;
  answers: OrchestratorQueue;
  ctx: PartnerSearchContext;
} {
  const sandbox = useSandbox();
  const broker = useBroker();
  let amqp: AmqpConnection;
  const holder = {
    get sandbox() {
      return sandbox.sandbox;
    },
    get answers() {
      return broker.answers;
    },
    ctx: undefined as unknown as PartnerSearchContext,
  };
  beforeAll(async () => {
    amqp = await broker.connect();
  });
  beforeEach(() => {
    const breakers = new PartnerCircuitBreakers(breaker);
    const registry = new PartnerAdapterRegistry();
    const calls = new PartnerCalls(registry, breakers);
    const answer = async ({ partner, offers, lead, tracking, ...search }: OnePartnerSearch) => {
      const published: PartnerSearchAnsweredV2[] = [];
      const capture = { publish: async (_type: string, payload: PartnerSearchAnsweredV2) => void published.push(payload) };
      await new SearchPartner(
        calls,
        capture as unknown as AmqpConnection,
        broker.config,
        keyStoreSealer(TEST_DATABASE_URL),
      ).answerAllAndPublish({ ...search, partners: [{ partner, offers, lead, tracking }] }, 'corr-answer');
      return { searchId: search.searchId, ...published[0].answers[0] };
    };
    holder.ctx = { service: new SearchPartner(calls, amqp, broker.config, keyStoreSealer(TEST_DATABASE_URL)), answer, breakers, registry };
  });
  afterEach(() => holder.ctx.breakers.onModuleDestroy());
  return holder;
}

/**
 * The partner-adapter worker as main.ts starts it (its handlers and providers
 * in the WorkerModule, on the test database and the file's broker state),
 * consuming its queue; `orchestrator` publishes requests as the
 * search-orchestrator does, and `answers` reads what comes back.
 */
export function usePartnerAdapterWorker(): {
  sandbox: RunningSandbox;
  answers: OrchestratorQueue;
  orchestrator: AmqpConnection;
  topology: Topology;
} {
  const sandbox = useSandbox();
  const broker = useBroker();
  let app: NestFastifyApplication | undefined;
  let orchestrator: AmqpConnection;
  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(
      WorkerModule.forRoot(broker.config, PARTNER_ADAPTER_WORKER),
      new FastifyAdapter(),
      { logger: false },
    );
    broker.stopFirst(async () => void (await app?.close()));
    await startAmqpConsumer(app);
    orchestrator = await broker.connect('search-orchestrator');
  });
  return {
    get sandbox() {
      return sandbox.sandbox;
    },
    get answers() {
      return broker.answers;
    },
    get orchestrator() {
      return orchestrator;
    },
    topology: topologyFor(broker.config),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
