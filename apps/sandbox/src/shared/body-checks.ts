import { InvalidParam } from './invalid-param';

/**
 * Checks of a simulated partner's request body: a refusal is a 400 naming the
 * field (`in: body`), and nothing is recorded.
 */
export function objectBody(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw new InvalidParam('body', 'body', 'The body must be a JSON object');
  return body;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function idString(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > 200) {
    throw new InvalidParam(field, 'body', `${field} must be a string of 1 to 200 characters`);
  }
  return v;
}

export function optionalObject(v: unknown, field: string): void {
  if (v !== undefined && v !== null && !isObject(v)) throw new InvalidParam(field, 'body', `${field} must be an object`);
}
