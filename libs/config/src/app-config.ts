import type { PersonKeySecret } from '@lr/domain';

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
  /** Where /metrics and /health/* answer: the gateway's and the sandbox's MANAGEMENT_PORT, a worker's httpPort. */
  managementPort: number;
  /** The address every listener binds (HOST). */
  host: string;
  /** Fastify's trustProxy: false (the socket's peer is the client), a hop count, or the proxies' addresses and CIDRs. */
  trustProxy: false | number | string[];
  /** Limits on how a client holds a connection (docs/security.md, The front door). */
  connections: { requestTimeoutMs: number; headersTimeoutMs: number; idleTimeoutMs: number; maxPerAddress: number };
  /** The gateway's budget per client address for unauthenticated requests, and how long an unknown key is remembered. */
  unauthenticated: { perMinute: number; burst: number; unknownKeyCacheMs: number };
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
  /** The server secret of the stored person keys (PERSON_KEY_SECRET or PERSON_KEY_SECRET_FILE; docs/security.md). */
  personKeySecret: PersonKeySecret;
}

/** The gateway's and the sandbox's management ports unless MANAGEMENT_PORT says otherwise (a worker's is its HTTP_PORT). */
export const GATEWAY_DEFAULT_MANAGEMENT_PORT = 9000;
export const SANDBOX_DEFAULT_MANAGEMENT_PORT = 4101;

export const APP_CONFIG = Symbol('APP_CONFIG');
