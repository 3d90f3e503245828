import type { ReadinessCheck } from '@lr/observability';
import type { AmqpConnection } from './amqp-connection';

/** `/health/ready` entry 'rabbitmq': up while the connection's publishing channel is set up. */
export function amqpReadiness(connection: AmqpConnection): ReadinessCheck {
  return {
    name: 'rabbitmq',
    async check(): Promise<void> {
      if (!connection.isConnected()) throw new Error('not connected to RabbitMQ');
    },
  };
}
