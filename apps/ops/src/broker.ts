import * as amqplib from 'amqplib';
import { DeadLetterQueueError } from '@lr/messaging';
import { CliError } from './cli-error';
import { redactUrl } from './database';

const CONNECT_TIMEOUT_MS = 10_000;

/** Opens a short-lived RabbitMQ connection for one command and always closes it. */
export async function withBroker<T>(url: string, fn: (conn: amqplib.ChannelModel) => Promise<T>): Promise<T> {
  let conn: amqplib.ChannelModel;
  try {
    // noDelay: without it every get, publish and ack waits for the broker's delayed TCP ACK (tens of ms each).
    conn = await amqplib.connect(url, {
      timeout: CONNECT_TIMEOUT_MS,
      noDelay: true,
      clientProperties: { connection_name: 'lead-router:ops' },
    });
  } catch (e) {
    throw new CliError(`cannot connect to RabbitMQ at ${redactUrl(url, 'AMQP_URL')}: ${(e as Error).message}`);
  }
  // A connection-level error also rejects the call under way; without a listener it would crash the process.
  conn.on('error', () => undefined);
  try {
    return await fn(conn);
  } catch (e) {
    if (e instanceof DeadLetterQueueError) throw new CliError(e.message);
    throw e instanceof CliError ? e : new CliError(`RabbitMQ: ${(e as Error).message}`);
  } finally {
    await conn.close().catch(() => undefined);
  }
}
