import { MESSAGE_TYPES } from '@lr/contracts';
import {
  CONSUMERS,
  MESSAGE_ROUTES,
  allQueueNames,
  buildTopology,
  consumerQueueNames,
  deadLetterQueueNames,
  declareTopology,
  queuesOf,
  retryLevelOf,
  routeOf,
  topologyFor,
  typesHandledBy,
} from './topology';
import { UnknownMessageTypeError } from './errors';

const topology = buildTopology({ prefix: 'lr', retryDelaysMs: [1000, 5000, 5000, 60000] });

describe('messaging topology', () => {
  it('names exchanges and queues from the prefix', () => {
    expect(topology.exchanges).toEqual({ commands: 'lr.commands', events: 'lr.events', retry: 'lr.retry', dlx: 'lr.dlx' });
    expect(consumerQueueNames(topology)).toEqual(['lr.search-orchestrator', 'lr.checks', 'lr.partner-adapter', 'lr.delivery']);
    expect(deadLetterQueueNames(topology)).toEqual(CONSUMERS.map((c) => `lr.${c}.dlq`));
    expect(queuesOf(topology, 'delivery').retry.map((l) => l.queue)).toEqual([
      'lr.delivery.retry.1000',
      'lr.delivery.retry.5000',
      'lr.delivery.retry.60000',
    ]);
    expect(allQueueNames(topology)).toHaveLength(4 * (1 + 3 + 1));
  });

  it('declares quorum queues; wait queues expire back to their own consumer queue', () => {
    const q = (name: string) => topology.declarations.queues.find((x) => x.name === name)!;
    expect(q('lr.checks').options.arguments).toMatchObject({
      'x-queue-type': 'quorum',
      'x-dead-letter-exchange': 'lr.dlx',
      'x-dead-letter-routing-key': 'checks',
    });
    expect(q('lr.checks.dlq').options.arguments).toEqual({ 'x-queue-type': 'quorum' });
    expect(q('lr.checks.retry.5000').options.arguments).toMatchObject({
      'x-queue-type': 'quorum',
      'x-message-ttl': 5000,
      'x-dead-letter-exchange': 'lr.retry',
      'x-dead-letter-routing-key': 'checks',
    });
    const b = topology.declarations.bindings;
    expect(b).toContainEqual({ exchange: 'lr.retry', routingKey: 'checks', queue: 'lr.checks' });
    expect(b).toContainEqual({ exchange: 'lr.retry', routingKey: 'checks.retry.5000', queue: 'lr.checks.retry.5000' });
    expect(b).toContainEqual({ exchange: 'lr.dlx', routingKey: 'checks', queue: 'lr.checks.dlq' });
    expect(topology.declarations.exchanges.map((e) => [e.name, e.type])).toEqual([
      ['lr.commands', 'direct'],
      ['lr.events', 'topic'],
      ['lr.retry', 'direct'],
      ['lr.dlx', 'direct'],
    ]);
  });

  it('routes search.requested.v2 to the search-orchestrator over the commands exchange', () => {
    expect(routeOf(topology, MESSAGE_TYPES.SearchRequested)).toMatchObject({ exchange: 'lr.commands', routingKey: 'search.requested.v2' });
    expect(typesHandledBy(topology, 'search-orchestrator')).toContain('search.requested.v2');
    expect(topology.declarations.bindings).toContainEqual({
      exchange: 'lr.commands',
      routingKey: 'search.requested.v2',
      queue: 'lr.search-orchestrator',
    });
    expect(() => routeOf(topology, 'nobody.handles.v1')).toThrow(UnknownMessageTypeError);
  });

  it('fans events out over the topic exchange', () => {
    const t = buildTopology({
      prefix: 'x',
      retryDelaysMs: [10],
      routes: [{ type: 'sale.booked.v1', kind: 'event', consumers: ['checks', 'delivery'] }],
    });
    expect(routeOf(t, 'sale.booked.v1').exchange).toBe('x.events');
    expect(t.declarations.bindings.filter((b) => b.exchange === 'x.events').map((b) => b.queue)).toEqual(['x.checks', 'x.delivery']);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(topology)).toBe(true);
    expect(Object.isFrozen(topology.consumers[0].retry)).toBe(true);
    expect(Object.isFrozen(topology.declarations.queues[0].options.arguments)).toBe(true);
    expect(Object.isFrozen(MESSAGE_ROUTES)).toBe(true);
  });

  it('rejects inconsistent routing tables and prefixes', () => {
    const base = { prefix: 'p', retryDelaysMs: [1] };
    expect(() => buildTopology({ ...base, routes: [{ type: 'a.b', kind: 'command', consumers: ['checks'] }] })).toThrow(/version/);
    expect(() => buildTopology({ ...base, routes: [{ type: 'a.v1', kind: 'command', consumers: ['checks', 'delivery'] }] })).toThrow(
      /exactly one/,
    );
    expect(() => buildTopology({ ...base, routes: [{ type: 'a.v1', kind: 'event', consumers: ['nobody'] }] })).toThrow(/unknown consumer/);
    expect(() => buildTopology({ ...base, prefix: 'Bad.Prefix' })).toThrow(/prefix/);
    expect(() => queuesOf(topology, 'gateway')).toThrow(/not a consumer/);
    expect(() => retryLevelOf(queuesOf(topology, 'checks'), 42)).toThrow(/no retry queue/);
  });

  it('builds the product topology from the app config', () => {
    const t = topologyFor({ amqp: { url: '', prefix: 'prod', prefetch: 1, maxAttempts: 5, retryDelaysMs: [1000, 5000] } });
    expect(consumerQueueNames(t)[0]).toBe('prod.search-orchestrator');
    expect(queuesOf(t, 'checks').retry.map((l) => l.delayMs)).toEqual([1000, 5000]);
  });

  it('declares everything in order: exchanges, queues, then bindings', async () => {
    const calls: string[] = [];
    const channel = {
      assertExchange: async (name: string) => void calls.push(`exchange ${name}`),
      assertQueue: async (name: string) => void calls.push(`queue ${name}`),
      bindQueue: async (q: string, ex: string, key: string) => void calls.push(`bind ${ex}/${key}->${q}`),
    };
    await declareTopology(channel, topology);
    const firstQueue = calls.findIndex((c) => c.startsWith('queue'));
    const firstBind = calls.findIndex((c) => c.startsWith('bind'));
    expect(calls.slice(0, firstQueue).every((c) => c.startsWith('exchange'))).toBe(true);
    expect(calls.slice(firstQueue, firstBind).every((c) => c.startsWith('queue'))).toBe(true);
    expect(calls.length).toBe(4 + topology.declarations.queues.length + topology.declarations.bindings.length);
  });
});
