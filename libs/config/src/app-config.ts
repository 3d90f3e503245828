import type { MasterKeys } from './master-keys';
export type AppName = 'gateway' | 'search-orchestrator' | 'partner-adapter' | 'checks' | 'delivery' | 'sandbox' | 'ops';

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

/**
 * Messages each worker handles at once (AMQP_PREFETCH overrides). Workers that
 * mostly wait on a remote system (partner networks, school systems) take more
 * at once than those that mostly wait on PostgreSQL.
 */
export const APP_DEFAULT_PREFETCH: Record<AppName, number> = {
  gateway: 16,
  'search-orchestrator': 64,
  'partner-adapter': 256,
  checks: 32,
  delivery: 64,
  sandbox: 16,
  ops: 16,
};

/** The typed, validated configuration every app receives (token APP_CONFIG). */
export interface AppConfig {
  app: AppName;
  env: 'development' | 'production' | 'test';
  httpPort: number;
  logLevel: string;
  database: { url: string };
  /** The key store (docs/security.md, Encryption at rest): its own database, and the master keys that wrap its data keys. */
  keyStore: { url: string; masterKeys: MasterKeys };
  redis: { url: string; keyPrefix: string };
  amqp: { url: string; prefix: string; prefetch: number; maxAttempts: number; retryDelaysMs: number[] };
  sandbox: { port: number };
  dependencyTimeoutMs: number;
  search: { replyTimeoutMs: number; openSeconds: number; partnerAnswerGatherMs: number };
  /** How long the gateway waits for a submit's decision before answering PENDING (ms). */
  submitAnswerTimeoutMs: number;
  shutdownGraceMs: number;
  /** On SIGTERM, how long readiness fails before the app stops taking work (ms). */
  shutdownDelayMs: number;
  /** How long a campaign's offers are reused from memory (ms). */
  catalogCacheMs: number;
  /** How long the gateway reuses an API key read from PostgreSQL (ms). */
  apiKeyCacheMs: number;
  /** Days the retention run keeps searches and handled-message records (docs/runbooks/retention.md). */
  retention: { searchDays: number; messageDays: number };
  /** How long one revocation notice's send may take (ms); its claim holds it a second longer. */
  revocationSendTimeoutMs: number;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
