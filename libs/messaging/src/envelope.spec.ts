import type { ConsumeMessage } from 'amqplib';
import { deadLetterProperties, replyProperties, retryCopyProperties } from './delivery-copies';
import { decodeDelivery, encodeJson, outgoingProperties } from './envelope';
import { HEADERS, MAX_ERROR_HEADER_BYTES, truncateUtf8, versionOf } from './headers';
import { buildTopology, queuesOf } from './topology';

const queues = queuesOf(buildTopology({ prefix: 't', retryDelaysMs: [100] }), 'delivery');

function delivery(props: Partial<ConsumeMessage['properties']>, body = '{"a":1}', routingKey = 'lead.submitted.v1'): ConsumeMessage {
  return {
    content: Buffer.from(body),
    fields: { deliveryTag: 1, redelivered: false, exchange: 't.commands', routingKey, consumerTag: 'c' },
    properties: { headers: {}, ...props } as ConsumeMessage['properties'],
  };
}

describe('message envelope', () => {
  it('publishes persistent JSON with id, type, version, attempt, correlation and time', () => {
    const p = outgoingProperties('gateway', 'search.requested.v1', 'm-1', { correlationId: 'req-9', headers: { extra: 'y' } });
    expect(p).toMatchObject({
      persistent: true,
      contentType: 'application/json',
      messageId: 'm-1',
      type: 'search.requested.v1',
      correlationId: 'req-9',
      appId: 'gateway',
    });
    expect(p.headers).toEqual({ extra: 'y', [HEADERS.version]: 1, [HEADERS.attempt]: 1 });
    expect(Math.abs((p.timestamp as number) - Date.now() / 1000)).toBeLessThan(2);
    expect(outgoingProperties('gateway', 'a.v2', 'm-2', {}).correlationId).toBe('m-2');
    expect(() => encodeJson(undefined)).toThrow(TypeError);
  });

  it('reads the metadata of a delivery', () => {
    const d = decodeDelivery(
      delivery({ messageId: 'm', type: 'lead.submitted.v3', correlationId: 'c', timestamp: 1700000000, headers: { [HEADERS.attempt]: 2 } }),
    );
    expect(d).toEqual({
      ok: true,
      payload: { a: 1 },
      meta: {
        messageId: 'm',
        type: 'lead.submitted.v3',
        version: 3,
        correlationId: 'c',
        timestamp: new Date(1700000000 * 1000),
        attempt: 2,
      },
    });
  });

  it('reports what cannot be handled: no id, no type, not JSON', () => {
    expect(decodeDelivery(delivery({ type: 'a.v1' }))).toMatchObject({ ok: false, reason: /messageId/ });
    expect(decodeDelivery(delivery({ messageId: 'm' }))).toMatchObject({ ok: false, reason: /type/ });
    expect(decodeDelivery(delivery({ messageId: 'm', type: 'a.v1' }, '{not json'))).toMatchObject({
      ok: false,
      reason: /invalid JSON/,
      attempt: 1,
    });
  });

  it('never quotes the body of a message that is not JSON (it may hold contact data)', () => {
    const body = 'Ada Lovelace ada@example.com';
    const decoded = decodeDelivery(delivery({ messageId: 'm', type: 'a.v1' }, body));
    expect(decoded).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid JSON body \(28 bytes\)/) });
    expect(JSON.stringify(decoded)).not.toMatch(/Ada|Lovelace|example/);
  });

  it('versions and truncates', () => {
    expect(versionOf('search.requested.v12')).toBe(12);
    expect(() => versionOf('search.requested')).toThrow();
    const long = 'é'.repeat(2000);
    const cut = truncateUtf8(long);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(MAX_ERROR_HEADER_BYTES);
    expect(cut).not.toContain('\uFFFD');
    expect(truncateUtf8('short')).toBe('short');
  });
});

describe('retry and dead-letter copies', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const original = delivery({
    messageId: 'm',
    type: 'lead.submitted.v1',
    correlationId: 'c',
    timestamp: 5,
    replyTo: 'rq',
    headers: { [HEADERS.attempt]: 1, [HEADERS.version]: 1 },
  });

  it('keeps the message and counts the attempt', () => {
    const p = retryCopyProperties(original, queues, 2, 'x'.repeat(5000), now);
    expect(p).toMatchObject({
      messageId: 'm',
      type: 'lead.submitted.v1',
      correlationId: 'c',
      timestamp: 5,
      replyTo: 'rq',
      persistent: true,
    });
    expect(p.headers).toMatchObject({
      [HEADERS.attempt]: 2,
      [HEADERS.firstFailureAt]: now.toISOString(),
      [HEADERS.originalRoutingKey]: 'lead.submitted.v1',
      [HEADERS.originalQueue]: 't.delivery',
    });
    expect((p.headers![HEADERS.lastError] as string).length).toBe(1024);
  });

  it('keeps the first failure time and routing key across retries, and drops broker death headers', () => {
    const again = delivery(
      {
        messageId: 'm',
        type: 'lead.submitted.v1',
        headers: {
          [HEADERS.attempt]: 3,
          [HEADERS.firstFailureAt]: 'earlier',
          [HEADERS.originalRoutingKey]: 'lead.submitted.v1',
          [HEADERS.lastError]: 'e',
          'x-death': [{ count: 1 } as never],
        },
      },
      '{}',
      'delivery',
    );
    const p = deadLetterProperties(again, queues, 'boom', 3, now);
    expect(p.headers).toEqual({
      [HEADERS.attempt]: 3,
      [HEADERS.attempts]: 3,
      [HEADERS.deathReason]: 'boom',
      [HEADERS.firstFailureAt]: 'earlier',
      [HEADERS.originalRoutingKey]: 'lead.submitted.v1',
      [HEADERS.originalQueue]: 't.delivery',
    });
  });

  it('correlates replies by correlationId and the request messageId', () => {
    const meta = { messageId: 'm', type: 'a.v1', version: 1, correlationId: 'c', timestamp: now, attempt: 1 };
    expect(replyProperties(meta, 'orchestrator', 'ok', 'r-1')).toMatchObject({
      correlationId: 'c',
      messageId: 'r-1',
      headers: { [HEADERS.replyStatus]: 'ok', [HEADERS.inReplyTo]: 'm' },
    });
  });
});
