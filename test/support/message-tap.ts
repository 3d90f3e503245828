import * as amqplib from 'amqplib';
import { MESSAGE_TYPES } from '../../libs/contracts/src';
import type { Topology } from '../../libs/messaging/src/topology';
import { TEST_AMQP_URL } from './test-env';

/** A message as it crossed the broker: its type and raw body. */
export interface CarriedMessage {
  type: string;
  body: string;
}

/**
 * A queue of a test's own bound to every message type of the commands
 * exchange and to everything on the events exchange of `topology` (declared
 * by the apps first): `carried` collects each message published while the
 * tap is open, in order. `channel` is the tap's, for the test's own checks;
 * `close` ends the connection (the queue goes with it).
 */
export async function tapMessages(
  topology: Topology,
): Promise<{ carried: CarriedMessage[]; channel: amqplib.Channel; close: () => Promise<void> }> {
  const connection = await amqplib.connect(TEST_AMQP_URL);
  const channel = await connection.createChannel();
  const carried: CarriedMessage[] = [];
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  for (const type of Object.values(MESSAGE_TYPES)) await channel.bindQueue(queue, topology.exchanges.commands, type);
  await channel.bindQueue(queue, topology.exchanges.events, '#');
  await channel.consume(queue, (m) => m && carried.push({ type: m.fields.routingKey, body: m.content.toString('utf8') }), {
    noAck: true,
  });
  return { carried, channel, close: () => connection.close().catch(() => undefined) };
}
