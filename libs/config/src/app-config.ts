export type AppName =
  | 'gateway'
  | 'search-orchestrator'
  | 'partner-adapter'
  | 'checks'
  | 'delivery'
  | 'sandbox'
  | 'ops';

/** The HTTP port each app listens on (gateway: API; workers: health and metrics). */
export const APP_DEFAULT_PORTS: Record<AppName, number> = {
  gateway: 3000,
  'search-orchestrator': 3001,
  'partner-adapter': 3002,
  checks: 3003,
  delivery: 3004,
  sandbox: 4100,
  ops: 0,
};

/** The typed, validated configuration every app receives (token APP_CONFIG). */
export interface AppConfig {
  app: AppName;
  env: 'development' | 'production' | 'test';
  httpPort: number;
  logLevel: string;
  database: { url: string };
  redis: { url: string; keyPrefix: string };
  amqp: { url: string; prefix: string; prefetch: number; maxAttempts: number; retryDelaysMs: number[] };
  sandbox: { port: number };
  dependencyTimeoutMs: number;
  search: { replyTimeoutMs: number; openSeconds: number };
  shutdownGraceMs: number;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
