import { ApiError } from './api-error';

/**
 * Runs one call to a dependency (PostgreSQL, Redis, RabbitMQ) with a deadline.
 * Any failure or a missed deadline becomes 503 UNAVAILABLE (retryable): an outage
 * is an answer, never a hang or a 500. ApiErrors thrown inside pass through.
 */
export async function dependency<T>(name: string, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DependencyTimeout(name, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([call(), deadline]);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new DependencyFailure(name, e);
  } finally {
    clearTimeout(timer);
  }
}

export class DependencyFailure extends ApiError {
  constructor(
    readonly dependencyName: string,
    readonly causeError: unknown,
  ) {
    const base = ApiError.unavailable();
    super(base.httpStatus, base.code, base.reason, base.extra, base.status, base.headers);
  }
}

class DependencyTimeout extends Error {
  constructor(name: string, ms: number) {
    super(`${name} did not answer within ${ms} ms`);
  }
}
