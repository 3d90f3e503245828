import type { Options } from 'amqplib';
import type { AppConfig } from '@lr/config';
import { MESSAGE_TYPES } from '@lr/contracts';
import { delayLevels } from './backoff';
import { UnknownMessageTypeError } from './errors';
import { versionOf } from './headers';

/**
 * The RabbitMQ topology, declared in this one place (ARCHITECTURE.md, Messaging
 * requirements). Every process declares all of it on every (re)connect, so a
 * producer that starts before its consumer never publishes into the void.
 *
 *   <p>.commands  direct  type -> the one consumer queue that handles the command
 *   <p>.events    topic   type -> every consumer queue that listens to the event
 *   <p>.<consumer>                  quorum; one per consuming app
 *   <p>.retry     direct  "<consumer>.retry.<ms>" -> wait queue; "<consumer>" -> <p>.<consumer>
 *   <p>.<consumer>.retry.<ms>       quorum, x-message-ttl <ms>, dead-letters to <p>.retry/"<consumer>"
 *   <p>.dlx       direct  "<consumer>" -> <p>.<consumer>.dlq
 *   <p>.<consumer>.dlq              quorum; where the transport parks failed messages
 *
 * Why one wait queue per consumer and per delay: RabbitMQ expires messages only
 * at the head of a queue, so per-message TTLs in one shared queue would hold a
 * 1 s retry behind a 60 s one (head-of-line blocking). With a fixed TTL per queue
 * every message in it expires in order, on time. Per consumer, because an event
 * fans out to several queues: a retry must go back to the one consumer that
 * failed, not to all of them; the "<consumer>" key on <p>.retry is that return
 * path, and also where `dlq replay` sends messages.
 */
export const CONSUMERS = ['search-orchestrator', 'checks', 'partner-adapter', 'delivery'] as const;
export type ConsumerName = (typeof CONSUMERS)[number];

/** A command has exactly one consumer (direct exchange); an event any number (topic exchange). */
export interface MessageRoute<C extends string = string> {
  type: string;
  kind: 'command' | 'event';
  consumers: readonly C[];
}

/** Which consumer queue handles each message type. Ops tooling and the k8s test read names from here. */
export const MESSAGE_ROUTES: readonly MessageRoute<ConsumerName>[] = deepFreeze([
  { type: MESSAGE_TYPES.SearchRequested, kind: 'command', consumers: ['search-orchestrator'] },
  { type: MESSAGE_TYPES.PartnerSearchRequested, kind: 'command', consumers: ['partner-adapter'] },
  { type: MESSAGE_TYPES.PartnerSearchAnswered, kind: 'command', consumers: ['search-orchestrator'] },
  { type: MESSAGE_TYPES.SubmitRequested, kind: 'command', consumers: ['checks'] },
  { type: MESSAGE_TYPES.DeliveryRequested, kind: 'command', consumers: ['delivery'] },
  { type: MESSAGE_TYPES.PartnerSubmitRequested, kind: 'command', consumers: ['partner-adapter'] },
  { type: MESSAGE_TYPES.RevocationRequested, kind: 'command', consumers: ['delivery'] },
]);

/**
 * A main queue redelivered this many times without an ack or a retry (its
 * consumer crashes on it every time) is dead-lettered by the broker itself
 * (header x-first-death-reason: delivery_limit), so a poison message cannot
 * crash-loop a worker forever. Normal retries are new copies and do not count.
 */
export const POISON_DELIVERY_LIMIT = 20;

export interface ExchangeSpec {
  name: string;
  type: 'direct' | 'topic';
  options: Options.AssertExchange;
}
export interface QueueSpec {
  name: string;
  options: Options.AssertQueue;
}
export interface BindingSpec {
  exchange: string;
  routingKey: string;
  queue: string;
}
export interface RetryLevel {
  delayMs: number;
  queue: string;
  /** Routing key on the retry exchange that reaches `queue`. */
  routingKey: string;
}
export interface ConsumerQueues {
  consumer: string;
  queue: string;
  retry: readonly RetryLevel[];
  dlq: string;
  /** Routing key on the retry exchange that reaches `queue` directly (retry return path, DLQ replays). */
  directRoutingKey: string;
  /** Routing key on the dead-letter exchange that reaches `dlq`. */
  dlqRoutingKey: string;
}
export interface Topology {
  prefix: string;
  exchanges: { commands: string; events: string; retry: string; dlx: string };
  consumers: readonly ConsumerQueues[];
  routes: readonly MessageRoute[];
  retryDelaysMs: readonly number[];
  /** Everything to assert, in order: exchanges, queues, bindings. */
  declarations: { exchanges: readonly ExchangeSpec[]; queues: readonly QueueSpec[]; bindings: readonly BindingSpec[] };
}

export interface TopologyOptions {
  prefix: string;
  /** Back-off per retry (AMQP_RETRY_DELAYS_MS); one wait queue per distinct value. */
  retryDelaysMs: readonly number[];
  routes?: readonly MessageRoute[];
  consumers?: readonly string[];
}

const QUORUM = { 'x-queue-type': 'quorum' } as const;
// At-least-once dead-lettering (RabbitMQ >= 3.10) needs reject-publish overflow; no length limit is set, so it never rejects.
const SAFE_DEAD_LETTERING = { 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' } as const;

export function buildTopology(opts: TopologyOptions): Topology {
  const { prefix } = opts;
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(prefix)) throw new Error(`invalid AMQP prefix "${prefix}"`);
  const consumers = opts.consumers ?? CONSUMERS;
  const routes = opts.routes ?? MESSAGE_ROUTES;
  validateRoutes(routes, consumers);
  const levels = delayLevels(opts.retryDelaysMs);
  const exchanges = { commands: `${prefix}.commands`, events: `${prefix}.events`, retry: `${prefix}.retry`, dlx: `${prefix}.dlx` };

  const consumerQueues: ConsumerQueues[] = consumers.map((consumer) => ({
    consumer,
    queue: `${prefix}.${consumer}`,
    retry: levels.map((delayMs) => ({
      delayMs,
      queue: `${prefix}.${consumer}.retry.${delayMs}`,
      routingKey: `${consumer}.retry.${delayMs}`,
    })),
    dlq: `${prefix}.${consumer}.dlq`,
    directRoutingKey: consumer,
    dlqRoutingKey: consumer,
  }));

  const queues: QueueSpec[] = [];
  const bindings: BindingSpec[] = [];
  for (const c of consumerQueues) {
    queues.push({
      name: c.queue,
      options: {
        durable: true,
        arguments: {
          ...QUORUM,
          'x-delivery-limit': POISON_DELIVERY_LIMIT,
          'x-dead-letter-exchange': exchanges.dlx,
          'x-dead-letter-routing-key': c.dlqRoutingKey,
          ...SAFE_DEAD_LETTERING,
        },
      },
    });
    bindings.push({ exchange: exchanges.retry, routingKey: c.directRoutingKey, queue: c.queue });
    for (const level of c.retry) {
      queues.push({
        name: level.queue,
        options: {
          durable: true,
          arguments: {
            ...QUORUM,
            'x-message-ttl': level.delayMs,
            'x-dead-letter-exchange': exchanges.retry,
            'x-dead-letter-routing-key': c.directRoutingKey,
            ...SAFE_DEAD_LETTERING,
          },
        },
      });
      bindings.push({ exchange: exchanges.retry, routingKey: level.routingKey, queue: level.queue });
    }
    queues.push({ name: c.dlq, options: { durable: true, arguments: { ...QUORUM } } });
    bindings.push({ exchange: exchanges.dlx, routingKey: c.dlqRoutingKey, queue: c.dlq });
  }
  for (const route of routes) {
    for (const consumer of route.consumers) {
      const exchange = route.kind === 'command' ? exchanges.commands : exchanges.events;
      bindings.push({ exchange, routingKey: route.type, queue: `${prefix}.${consumer}` });
    }
  }

  return deepFreeze({
    prefix,
    exchanges,
    consumers: consumerQueues,
    routes: routes.map((r) => ({ ...r, consumers: [...r.consumers] })),
    retryDelaysMs: [...opts.retryDelaysMs],
    declarations: {
      exchanges: [
        { name: exchanges.commands, type: 'direct', options: { durable: true } },
        { name: exchanges.events, type: 'topic', options: { durable: true } },
        { name: exchanges.retry, type: 'direct', options: { durable: true } },
        { name: exchanges.dlx, type: 'direct', options: { durable: true } },
      ],
      queues,
      bindings,
    },
  });
}

/** The product topology for a process's configuration. */
export function topologyFor(config: Pick<AppConfig, 'amqp'>): Topology {
  return buildTopology({ prefix: config.amqp.prefix, retryDelaysMs: config.amqp.retryDelaysMs });
}

/** Where a message of `type` is published. */
export function routeOf(topology: Topology, type: string): { exchange: string; routingKey: string; route: MessageRoute } {
  const route = topology.routes.find((r) => r.type === type);
  if (!route) throw new UnknownMessageTypeError(type);
  return { exchange: route.kind === 'command' ? topology.exchanges.commands : topology.exchanges.events, routingKey: type, route };
}

export function queuesOf(topology: Topology, consumer: string): ConsumerQueues {
  const found = topology.consumers.find((c) => c.consumer === consumer);
  if (!found)
    throw new Error(`"${consumer}" is not a consumer of the messaging topology (${topology.consumers.map((c) => c.consumer).join(', ')})`);
  return found;
}

/** The wait queue for a back-off of `delayMs` (a value of the configured delays). */
export function retryLevelOf(queues: ConsumerQueues, delayMs: number): RetryLevel {
  const level = queues.retry.find((l) => l.delayMs === delayMs);
  if (!level) throw new Error(`no retry queue with a delay of ${delayMs} ms for ${queues.consumer}`);
  return level;
}

/** Message types a consumer handles, i.e. the patterns its handlers should cover. */
export function typesHandledBy(topology: Topology, consumer: string): string[] {
  return topology.routes.filter((r) => r.consumers.includes(consumer)).map((r) => r.type);
}

export function consumerQueueNames(topology: Topology): string[] {
  return topology.consumers.map((c) => c.queue);
}

export function deadLetterQueueNames(topology: Topology): string[] {
  return topology.consumers.map((c) => c.dlq);
}

/** Every queue of the topology (main, wait and dead-letter queues), e.g. to delete a test's topology. */
export function allQueueNames(topology: Topology): string[] {
  return topology.declarations.queues.map((q) => q.name);
}

/** A per-process reply queue for request/reply; exclusive, so it dies with its connection. */
export function replyQueueName(prefix: string, id: string): string {
  return `${prefix}.reply.${id}`;
}

/** The slice of an amqplib channel declaring needs (a plain or a confirm channel). */
export interface DeclaringChannel {
  assertExchange(exchange: string, type: string, options?: Options.AssertExchange): Promise<unknown>;
  assertQueue(queue: string, options?: Options.AssertQueue): Promise<unknown>;
  bindQueue(queue: string, source: string, pattern: string, args?: unknown): Promise<unknown>;
}

/**
 * Asserts every exchange, queue and binding. Idempotent: re-asserting with the
 * same arguments is a no-op on the broker. A queue that exists with other
 * arguments fails with PRECONDITION_FAILED (406), which is a deploy error:
 * delete or migrate the queue, never silently use a differently shaped one.
 */
export async function declareTopology(channel: DeclaringChannel, topology: Topology): Promise<void> {
  const d = topology.declarations;
  await Promise.all(d.exchanges.map((e) => channel.assertExchange(e.name, e.type, e.options)));
  await Promise.all(d.queues.map((q) => channel.assertQueue(q.name, q.options)));
  await Promise.all(d.bindings.map((b) => channel.bindQueue(b.queue, b.exchange, b.routingKey)));
}

function validateRoutes(routes: readonly MessageRoute[], consumers: readonly string[]): void {
  const seen = new Set<string>();
  for (const r of routes) {
    versionOf(r.type);
    if (seen.has(r.type)) throw new Error(`message type "${r.type}" is routed twice`);
    seen.add(r.type);
    if (r.kind === 'command' && r.consumers.length !== 1) throw new Error(`command "${r.type}" must have exactly one consumer`);
    for (const c of r.consumers) {
      if (!consumers.includes(c)) throw new Error(`message type "${r.type}" is routed to unknown consumer "${c}"`);
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
