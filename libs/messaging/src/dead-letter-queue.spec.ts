import type { ChannelModel } from 'amqplib';
import { deadLetterQueueNamed, returnsWarning } from './dead-letter-queue';
import { buildTopology } from './topology';

const broker = (version: string) => ({ connection: { serverProperties: { version } } }) as unknown as ChannelModel;

describe('dead-letter queues', () => {
  it('only the DLQs of the topology are DLQs', () => {
    const t = buildTopology({ prefix: 'lr', retryDelaysMs: [100] });
    expect(deadLetterQueueNamed(t, 'lr.delivery.dlq')).toMatchObject({
      consumer: 'delivery',
      queue: 'lr.delivery',
      directRoutingKey: 'delivery',
    });
    for (const name of ['lr.delivery', 'lr.delivery.retry.100', 'other.delivery.dlq', 'lr.nobody.dlq', ''])
      expect(deadLetterQueueNamed(t, name)).toBeUndefined();
  });

  it('warns about reading a DLQ again only where a quorum queue has a default delivery limit (RabbitMQ 4)', () => {
    expect(returnsWarning(broker('4.0.5'), 'lr.delivery.dlq', 12)).toMatch(
      /given back 12 times; RabbitMQ 4\.0\.5 drops a quorum queue's message after 20 deliveries/,
    );
    expect(returnsWarning(broker('4.1.0'), 'lr.delivery.dlq', 9)).toBeUndefined();
    expect(returnsWarning(broker('3.13.7'), 'lr.delivery.dlq', 50)).toBeUndefined();
  });
});
