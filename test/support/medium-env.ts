/** Where the medium tier keeps its state (its own database and Redis db; overridable so two runs on one machine keep apart). */
export const MEDIUM_DATABASE_URL = process.env.MEDIUM_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/leadrouter_medium';
export const MEDIUM_REDIS_URL = process.env.MEDIUM_REDIS_URL ?? 'redis://127.0.0.1:6379/14';
