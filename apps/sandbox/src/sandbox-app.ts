import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, loadConfig } from '@lr/config';
import { startHttpApp } from '@lr/observability';
import { sandboxModule } from './sandbox.module';
import type { SandboxOptions } from './shared/sandbox-options';

export interface SandboxAppOptions extends Partial<SandboxOptions> {
  /** Port to listen on; 0 picks a free one. Default: the config's (SANDBOX_PORT, 4100). */
  port?: number;
  /** Management port (/health/*, /metrics); 0 picks a free one. Default: 0 when `port` is given, else the config's (MANAGEMENT_PORT). */
  managementPort?: number;
  /** Default: loadConfig('sandbox') from the environment. */
  config?: AppConfig;
}

export interface RunningSandbox {
  app: NestFastifyApplication;
  port: number;
  /** `http://127.0.0.1:<port>`, to build school delivery URLs and partner base_urls. */
  url: string;
  /** `http://127.0.0.1:<management port>`: /health/live, /health/ready, /metrics. */
  managementUrl: string;
  /** Releases held and delayed requests, then closes the server. */
  close(): Promise<void>;
}

/**
 * Starts the sandbox and listens. Tests start it in-process:
 * `const sandbox = await createSandboxApp({ port: 0 })` … `await sandbox.close()`.
 */
export async function createSandboxApp(portOrOptions: number | SandboxAppOptions = {}): Promise<RunningSandbox> {
  const { port, managementPort, config: given, ...options } = typeof portOrOptions === 'number' ? { port: portOrOptions } : portOrOptions;
  const base = given ?? loadConfig('sandbox');
  const config: AppConfig = Object.freeze({
    ...base,
    ...(port === undefined ? {} : { httpPort: port, sandbox: { port } }),
    managementPort: managementPort ?? (port === undefined ? base.managementPort : 0),
  });
  const { app, management } = await startHttpApp(sandboxModule(config, options), config);
  const bound = (app.getHttpServer().address() as AddressInfo).port;
  return {
    app,
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    managementUrl: `http://127.0.0.1:${management.port}`,
    close: () => app.close(),
  };
}
