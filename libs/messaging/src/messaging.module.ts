import { DynamicModule, INestApplication, INestMicroservice, Module, Provider } from '@nestjs/common';
import type { AppConfig } from '@lr/config';
import { AmqpConnection } from './amqp-connection';
import { AmqpTransport } from './amqp-transport';
import { CaptureHandlerErrors } from './handler-decorators';
import type { ConsumerName, Topology } from './topology';

export interface MessagingModuleOptions {
  /** Set in a worker: the consumer queue whose messages this process handles (see CONSUMERS). */
  consumer?: ConsumerName;
  /** Replaces the product topology; for tests and tools. */
  topology?: Topology;
  /** Pause between reconnect attempts (default 1000 ms). */
  reconnectDelayMs?: number;
}

/**
 * Provides the process's AmqpConnection (publish, request) and, for a worker,
 * the AmqpTransport that feeds its queue to the message handlers. Global, like
 * ConfigModule: any provider may publish.
 */
@Module({})
export class MessagingModule {
  static forRoot(config: AppConfig, opts: MessagingModuleOptions = {}): DynamicModule {
    const providers: Provider[] = [
      {
        provide: AmqpConnection,
        useFactory: () => new AmqpConnection(config, { topology: opts.topology, reconnectDelayMs: opts.reconnectDelayMs }),
      },
      CaptureHandlerErrors,
    ];
    const consumer = opts.consumer;
    if (consumer) {
      providers.push({
        provide: AmqpTransport,
        inject: [AmqpConnection],
        useFactory: (c: AmqpConnection) => new AmqpTransport(c, config, consumer),
      });
    }
    return {
      global: true,
      module: MessagingModule,
      providers,
      exports: [AmqpConnection, CaptureHandlerErrors, ...(consumer ? [AmqpTransport] : [])],
    };
  }
}

/**
 * Attaches the AmqpTransport of MessagingModule.forRoot(config, { consumer }) to
 * an app and starts consuming. Call it after app.init() (done here when needed)
 * so every provider is ready before the first message arrives. The app's global
 * enhancers (HTTP filters and guards) are not inherited by message handlers.
 */
export async function startAmqpConsumer(app: INestApplication): Promise<INestMicroservice> {
  await app.init();
  const microservice = app.connectMicroservice({ strategy: app.get(AmqpTransport) });
  await app.startAllMicroservices();
  return microservice;
}
