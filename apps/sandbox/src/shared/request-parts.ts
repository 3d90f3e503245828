import type { FastifyRequest } from 'fastify';
import { InvalidParam } from './invalid-param';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A school's or partner's name in the path: what separates one simulated system from another. */
export function systemName(value: string, param: 'school' | 'partner'): string {
  if (!NAME.test(value)) {
    throw new InvalidParam(param, 'path', `${param} name must be 1 to 64 letters, digits, dots, dashes or underscores`);
  }
  return value;
}

/** The caller's `Idempotency-Key` header, if sent: 1 to 255 visible ASCII characters. */
export function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const value = req.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (Array.isArray(value) || !/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new InvalidParam('Idempotency-Key', 'header', 'Idempotency-Key must be sent once, as 1 to 255 visible ASCII characters');
  }
  return value;
}

/** The headers kept with a receipt: enough to check what a client sent, nothing it did not need to. */
export const RECORDED_HEADERS = ['idempotency-key', 'x-request-id', 'x-sandbox-outcome'] as const;

export function recordedHeaders(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of RECORDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}
