import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsIP, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?\d+$/.test(String(value)) ? Number(value) : value;

/**
 * Every environment variable the services read, with the connection defaults of
 * ARCHITECTURE.md. Validated once at start-up (see load-config.ts); nothing else
 * in the code base reads process.env.
 */
export class EnvironmentVariables {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV = 'development';

  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/leadrouter';

  /**
   * The key store's database (docs/security.md, Encryption at rest): the
   * wrapped data keys, kept apart from the main database so that a dump of
   * the main database never holds them. Default: DATABASE_URL's database
   * name with `_keys` appended, on the same server.
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'KEYSTORE_DATABASE_URL must be a postgres:// URL' })
  KEYSTORE_DATABASE_URL?: string;

  /**
   * The master keys that wrap the data keys: `id:base64` pairs (each key 32
   * bytes), comma-separated; or DATA_MASTER_KEYS_FILE, a file holding the same.
   * Required in production; development and tests fall back to a fixed
   * development key that protects nothing.
   */
  @IsOptional()
  @IsString()
  DATA_MASTER_KEYS?: string;

  @IsOptional()
  @IsString()
  DATA_MASTER_KEYS_FILE?: string;

  /** The id (in DATA_MASTER_KEYS) of the master key new data keys are wrapped under; default: the first listed. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'DATA_MASTER_KEY_ID must be 1-64 letters, digits, _ . or -' })
  DATA_MASTER_KEY_ID?: string;

  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Every Redis key the services write starts with this; tests use their own. */
  @IsString()
  REDIS_KEY_PREFIX = 'lr:';

  @Matches(/^amqps?:\/\/.+/, { message: 'AMQP_URL must be an amqp:// URL' })
  AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

  /** Every exchange and queue name starts with this and a dot; tests use their own. */
  @Matches(/^[a-z0-9][a-z0-9_-]*$/, { message: 'AMQP_PREFIX must be lower-case letters, digits, _ or -' })
  AMQP_PREFIX = 'lr';

  /** Messages a worker handles at once; each app has its own default (see APP_DEFAULT_PREFETCH). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  AMQP_PREFETCH?: number;

  /** Tries of a message (first delivery included) before it goes to its dead-letter queue. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(50)
  AMQP_MAX_ATTEMPTS = 5;

  /** Back-off before retry 1, 2, …; the last value repeats. Comma-separated milliseconds. */
  @Matches(/^\d+(,\d+)*$/, { message: 'AMQP_RETRY_DELAYS_MS must be comma-separated milliseconds, e.g. 1000,5000,15000' })
  AMQP_RETRY_DELAYS_MS = '1000,5000,15000,60000';

  /** Gateway HTTP port. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  SANDBOX_PORT = 4100;

  /** Health/metrics port of a worker app; each app has its own default (see APP_DEFAULT_PORTS). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT?: number;

  /**
   * Management port (GET /metrics, /health/live, /health/ready) of the gateway
   * and the sandbox; never the public API port. A worker serves them on its
   * HTTP_PORT, its only port. Default: gateway 9000, sandbox 4101.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  MANAGEMENT_PORT?: number;

  /** The address every listener of the app binds (API and management ports): 0.0.0.0 in a container. */
  @IsIP()
  HOST = '127.0.0.1';

  /**
   * Which proxies the gateway believes about the client's address
   * (X-Forwarded-For): empty trusts none and takes the socket's peer; a
   * number trusts that many hops; otherwise comma-separated addresses or
   * CIDR ranges of the proxies (docs/security.md, The front door).
   */
  @Matches(/^$|^\d{1,2}$|^[0-9A-Fa-f.:/]+(\s*,\s*[0-9A-Fa-f.:/]+)*$/, {
    message: 'TRUST_PROXY must be empty, a hop count, or comma-separated proxy addresses/CIDRs',
  })
  TRUST_PROXY = '';

  /** Longest time a client may take to send a whole request, headers and body (408 beyond it). */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600000)
  REQUEST_TIMEOUT_MS = 10000;

  /** Longest time a client may take to send a request's headers (408 beyond it); at most REQUEST_TIMEOUT_MS. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600000)
  HEADERS_TIMEOUT_MS = 5000;

  /**
   * A connection on which nothing moves this long either way is closed. Above
   * the longest answer an app makes a caller wait for (the gateway's
   * SUBMIT_ANSWER_TIMEOUT_MS and SEARCH_REPLY_TIMEOUT_MS, at most 60 s; a
   * sandbox school held up to a buyer's 120 s deadline), or a slow answer
   * loses its connection.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600000)
  CONNECTION_IDLE_TIMEOUT_MS = 130000;

  /** Open connections one client address may hold on a listener; more are closed at once (0: no cap). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100000)
  MAX_CONNECTIONS_PER_ADDRESS = 256;

  /**
   * The gateway's budget per client address for requests that present no
   * usable key (401): per minute and burst, in Redis like the per-key limits;
   * beyond it such requests answer 429 RATE_LIMITED with Retry-After.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000000)
  UNAUTHENTICATED_PER_MINUTE = 60;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000000)
  UNAUTHENTICATED_BURST = 30;

  /** How long the gateway remembers that a key hash is unknown (no PostgreSQL lookup meanwhile); 0 never. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600000)
  UNKNOWN_KEY_CACHE_MS = 5000;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** How long a caller waits on a dependency (Redis, PostgreSQL, RabbitMQ) before answering 503. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(30000)
  DEPENDENCY_TIMEOUT_MS = 1500;

  /** How long the gateway waits for the search-orchestrator's first answer to a search. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60000)
  SEARCH_REPLY_TIMEOUT_MS = 3000;

  /**
   * How long the gateway waits for a submit's decision before answering
   * PENDING (HTTP 202); the decision still completes and is stored, and
   * GET /api/v1/engine/leads/{svc_lead_id} answers it.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60000)
  SUBMIT_ANSWER_TIMEOUT_MS = 5000;

  /** A search stays open this long at most (contract: 45 seconds). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  SEARCH_OPEN_SECONDS = 45;

  /**
   * partner-adapter: once a partner of a search has answered, how long its
   * answer may wait for the search's other partners still being called, to
   * go with theirs in one message (0: never waits).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1000)
  PARTNER_ANSWER_GATHER_MS = 10;

  /** On SIGTERM, how long in-flight work may take before the process exits anyway. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600000)
  SHUTDOWN_GRACE_MS = 10000;

  /**
   * On SIGTERM, how long readiness answers 503 while the app keeps serving and
   * consuming, before it stops taking work (behind a load balancer: long enough
   * for it to notice, e.g. 5000 on Kubernetes).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60000)
  SHUTDOWN_DELAY_MS = 0;

  /**
   * How long the gateway reuses an API key read from PostgreSQL. A revocation
   * reaches every gateway at once through Redis (keys revoke announces it);
   * this bounds how long any other change (a paused affiliate) takes.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60000)
  API_KEY_CACHE_MS = 1000;

  /** How long a worker reuses a campaign's offers as read from the catalog; 0 reads them for every search. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600000)
  CATALOG_CACHE_MS = 2000;

  /**
   * Days a search is kept, with its day's result templates and partner calls
   * (`ops retention run`, docs/runbooks/retention.md); searches a lead names
   * are kept with the leads. At least 3 (libs/domain SEARCH_RETENTION): a
   * result can be submitted up to a day after its search.
   */
  @Transform(toInt)
  @IsInt()
  @Min(3)
  @Max(3650)
  RETENTION_SEARCH_DAYS = 30;

  /**
   * Days a handled-message record (`processed_messages`) is kept. At least 2
   * (libs/domain MESSAGE_RETENTION): longer than the longest redelivery
   * horizon, a dead-letter replay included.
   */
  @Transform(toInt)
  @IsInt()
  @Min(2)
  @Max(3650)
  RETENTION_MESSAGE_DAYS = 30;

  /**
   * How long one revocation notice's send may take (docs/opt-outs.md). Its
   * claim holds the notice a little longer: a sender that dies mid-send gives
   * the notice up then, and the delivery service's relay sends it again.
   */
  @Transform(toInt)
  @IsInt()
  @Min(500)
  @Max(120000)
  REVOCATION_SEND_TIMEOUT_MS = 10000;

  /**
   * The server secret person keys are made with (docs/security.md, "Person
   * keys"): at least 32 characters. Required in production, as this variable
   * or as a file (PERSON_KEY_SECRET_FILE, e.g. a mounted Kubernetes Secret);
   * development and test use a fixed secret of their own. Never echoed in an
   * error (load-config.ts checks it apart from the rest).
   */
  @IsOptional()
  @IsString()
  PERSON_KEY_SECRET?: string;

  /** A file whose content (a trailing newline dropped) is the person key secret; not together with PERSON_KEY_SECRET. */
  @IsOptional()
  @IsString()
  PERSON_KEY_SECRET_FILE?: string;
}
