import type { Message } from 'amqplib';
import { describeDeadLetter } from './dead-letter-info';
import { deadLetterProperties, replayCopyProperties } from './delivery-copies';
import { HEADERS } from './headers';
import { buildTopology, queuesOf } from './topology';

const queues = queuesOf(buildTopology({ prefix: 't', retryDelaysMs: [100] }), 'delivery');

function message(props: Partial<Message['properties']>, routingKey = 't.delivery.dlq'): Message {
  return {
    content: Buffer.from('{"lead":{"email":"ada@example.com"}}'),
    fields: { deliveryTag: 1, redelivered: false, exchange: 't.dlx', routingKey },
    properties: { headers: {}, ...props } as Message['properties'],
  } as Message;
}

/** What the transport parks: a submit that failed three times. */
function parked(): Message {
  const original = message(
    {
      messageId: 'submit:L-1',
      type: 'submit.requested.v1',
      correlationId: 'req-1',
      timestamp: 1_790_000_000,
      replyTo: 't.reply.x',
      appId: 'gateway',
      contentType: 'application/json',
      headers: {
        [HEADERS.version]: 1,
        [HEADERS.attempt]: 3,
        [HEADERS.firstFailureAt]: '2026-09-21T10:00:00.000Z',
        [HEADERS.originalRoutingKey]: 'submit.requested.v1',
        [HEADERS.lastError]: 'timeout',
      },
    },
    'delivery',
  );
  const p = deadLetterProperties(original as never, queues, 'RequestTimeoutError: no reply', 3, new Date('2026-09-21T10:00:05Z'));
  return message({ ...p, headers: { ...p.headers, 'x-delivery-count': 4 } } as Message['properties']);
}

describe('dead letters: what an operator sees, and what a replay sends', () => {
  it('reads the failure story from the headers the transport wrote, never the body', () => {
    const info = describeDeadLetter(parked());
    expect(info).toEqual({
      messageId: 'submit:L-1',
      type: 'submit.requested.v1',
      correlationId: 'req-1',
      reason: 'RequestTimeoutError: no reply',
      attempts: 3,
      firstFailureAt: '2026-09-21T10:00:00.000Z',
      originalQueue: 't.delivery',
      originalRoutingKey: 'submit.requested.v1',
      publishedAt: new Date(1_790_000_000 * 1000).toISOString(),
    });
    expect(JSON.stringify(info)).not.toContain('ada@example.com');
  });

  it('reads a message the broker parked itself (delivery limit) from its x-death record', () => {
    const info = describeDeadLetter(
      message({
        messageId: 'm-2',
        type: 'search.requested.v1',
        headers: <Record<string, unknown>>{
          [HEADERS.attempt]: 1,
          'x-first-death-reason': 'delivery_limit',
          'x-first-death-queue': 't.search-orchestrator',
          'x-death': [
            {
              count: 1,
              reason: 'delivery_limit',
              queue: 't.search-orchestrator',
              time: { '!': 'timestamp', value: 1_790_000_100 },
              'routing-keys': ['search.requested.v1'],
            },
          ],
        },
      }),
    );
    expect(info).toMatchObject({
      reason: expect.stringMatching(/^delivery_limit: the broker parked it after 20 deliveries/),
      attempts: 1,
      firstFailureAt: new Date(1_790_000_100 * 1000).toISOString(),
      originalQueue: 't.search-orchestrator',
      originalRoutingKey: 'search.requested.v1',
    });
  });

  it('says what it does not know instead of guessing', () => {
    expect(describeDeadLetter(message({}))).toEqual({
      messageId: null,
      type: null,
      correlationId: null,
      reason: null,
      attempts: null,
      firstFailureAt: null,
      originalQueue: null,
      originalRoutingKey: null,
      publishedAt: null,
    });
  });

  it('a replay copy is the same message as a fresh first try: same id, type, correlation, time and key; no failure headers, no replyTo', () => {
    const p = replayCopyProperties(parked(), 'submit.requested.v1', new Date('2026-09-22T08:00:00Z'));
    expect(p).toMatchObject({
      messageId: 'submit:L-1',
      type: 'submit.requested.v1',
      correlationId: 'req-1',
      timestamp: 1_790_000_000,
      appId: 'gateway',
      persistent: true,
      mandatory: true,
    });
    expect(p.replyTo).toBeUndefined();
    expect(p.headers).toEqual({
      [HEADERS.version]: 1,
      [HEADERS.attempt]: 1,
      [HEADERS.originalRoutingKey]: 'submit.requested.v1',
      [HEADERS.replayedAt]: '2026-09-22T08:00:00.000Z',
    });
  });
});
