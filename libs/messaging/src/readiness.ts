import type { ReadinessCheck } from '@lr/observability';
import type { AmqpConnection } from './amqp-connection';

/**
 * `/health/ready` entry 'rabbitmq': up while the publishing channel is set up
 * and the broker confirms a message (AmqpConnection.ping), so a broker that
 * holds the connection open but answers nothing reads as down at once, not
 * only after the heartbeats have run out.
 */
export function amqpReadiness(connection: AmqpConnection): ReadinessCheck {
  return {
    name: 'rabbitmq',
    async check(): Promise<void> {
      if (!connection.isConnected()) throw new Error('not connected to RabbitMQ');
      await connection.ping();
    },
  };
}
