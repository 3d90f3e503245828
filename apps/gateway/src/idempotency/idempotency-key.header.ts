import type { FastifyRequest } from 'fastify';
import { IDEMPOTENCY_KEY_HEADER, readIdempotencyKey } from '@lr/domain';
import { ApiError } from '../http/api-error';

/** The request's `Idempotency-Key` (null when it has none); a key that cannot name a request is a 400 naming the header. */
export function idempotencyKeyOf(req: FastifyRequest): string | null {
  const reading = readIdempotencyKey(req.headers[IDEMPOTENCY_KEY_HEADER]);
  if ('refusal' in reading) throw ApiError.of(reading.refusal);
  return reading.key;
}
