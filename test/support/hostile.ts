import * as amqplib from 'amqplib';
import { connect } from 'node:net';
import { Client } from 'pg';
import { loadConfig } from '../../libs/config/src';
import { API_CODES, OUTCOME_STATUSES } from '../../libs/contracts/src';
import { allQueueNames, topologyFor } from '../../libs/messaging/src/topology';
import type { HttpAnswer } from './http';
import { TEST_AMQP_URL, TEST_DATABASE_URL } from './test-env';

/**
 * Shared by the hostile-input and isolation end-to-end tests: what the system
 * stored and queued (to prove a refused request left nothing behind), the
 * contract's error envelope checked field by field, and a raw HTTP client for
 * requests fetch() will not send (duplicated or malformed headers).
 */

/** Whose rows a test file counts: the affiliates and offers of its own catalog (other files share the database). */
export interface StateScope {
  affiliateIds: string[];
  offerIds: string[];
}

const OF_SEARCHES = 'SELECT id FROM searches WHERE affiliate_id = ANY($1::uuid[])';
const OF_LEADS = 'SELECT id FROM leads WHERE affiliate_id = ANY($1::uuid[])';
const OF_OPT_OUTS = 'SELECT id FROM opt_outs WHERE affiliate_id = ANY($1::uuid[])';

/**
 * Every table a search, a submit, an opt-out or a message handler writes rows
 * into, each counted for the file's own affiliates and offers ($1, $2):
 * the end-to-end files run side by side on one database, so a row another
 * file writes meanwhile is not this file's.
 */
const WRITTEN_TABLES: Record<string, string> = {
  searches: 'affiliate_id = ANY($1::uuid[])',
  results: `search_id IN (${OF_SEARCHES})`,
  result_templates: 'offer_id = ANY($2::uuid[])',
  search_partner_calls: `search_id IN (${OF_SEARCHES})`,
  leads: 'affiliate_id = ANY($1::uuid[])',
  sales: 'affiliate_id = ANY($1::uuid[])',
  dedupe_keys: 'affiliate_id = ANY($1::uuid[])',
  consent_evidence: `lead_id IN (${OF_LEADS})`,
  delivery_attempts: `lead_id IN (${OF_LEADS})`,
  cap_usage: `EXISTS (SELECT 1 FROM unnest($2::uuid[]) AS o(id) WHERE scope LIKE '%offer:' || o.id::text)`,
  // Keyed by message, not by affiliate: counted whole (few handlers write it).
  processed_messages: 'true',
  opt_outs: 'affiliate_id = ANY($1::uuid[])',
  suppressions: `opt_out_id IN (${OF_OPT_OUTS})`,
  suppression_audit: `opt_out_id IN (${OF_OPT_OUTS})`,
  revocation_notices: `opt_out_id IN (${OF_OPT_OUTS})`,
};

/**
 * Row counts of WRITTEN_TABLES in the test database (the file's own rows)
 * and the messages waiting in this test file's queues (main, retry and
 * dead-letter queues of every consumer). The gateway answers a search or a
 * submit only after its worker replied, so a request that was (wrongly)
 * published shows up here by the time its answer arrives: as a stored row,
 * or as a message retried or dead-lettered.
 */
export class StoredState {
  private constructor(
    private readonly db: Client,
    private readonly conn: amqplib.ChannelModel,
    private readonly channel: amqplib.Channel,
    private readonly queues: string[],
    private readonly scope: StateScope,
  ) {}

  static async open(env: Record<string, string>, scope: StateScope): Promise<StoredState> {
    const db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    const conn = await amqplib.connect(TEST_AMQP_URL);
    const channel = await conn.createChannel();
    const queues = allQueueNames(topologyFor(loadConfig('gateway', env)));
    return new StoredState(db, conn, channel, queues, scope);
  }

  async snapshot(): Promise<Record<string, number>> {
    const sql = `SELECT ${Object.entries(WRITTEN_TABLES)
      .map(([t, where]) => `(SELECT count(*) FROM ${t} WHERE ${where})::int AS ${t}`)
      .join(', ')}`;
    const counts = (await this.db.query(sql, [this.scope.affiliateIds, this.scope.offerIds])).rows[0] as Record<string, number>;
    let queued = 0;
    for (const q of this.queues) queued += (await this.channel.checkQueue(q)).messageCount;
    return { ...counts, queued };
  }

  async close(): Promise<void> {
    await this.channel.close().catch(() => undefined);
    await this.conn.close().catch(() => undefined);
    await this.db.end().catch(() => undefined);
  }
}

/** Keys an error answer may carry: the contract's (code, status, reason, retryable, retry_after_seconds, error) and the gateway's documented additions. */
const ERROR_KEYS = new Set([
  'code',
  'status',
  'reason',
  'success',
  'retryable',
  'retry_after_seconds',
  'error',
  'field',
  'errors',
  'request_id',
  'dependency',
]);

/** The codes each HTTP status may carry (affiliate-api.md, Errors and Authentication; 405/408/413/415/431 are the gateway's MALFORMED_REQUEST). */
const CODES_BY_HTTP: Record<number, string[]> = {
  400: ['REQUIRED_FIELD_MISSING', 'INVALID_FIELD', 'NOT_FOUND', 'MALFORMED_REQUEST'],
  401: ['AUTH_REQUIRED', 'AUTH_INVALID'],
  403: ['FORBIDDEN'],
  404: ['NOT_FOUND'],
  405: ['MALFORMED_REQUEST'],
  408: ['MALFORMED_REQUEST'],
  409: ['MALFORMED_REQUEST'],
  413: ['MALFORMED_REQUEST'],
  415: ['MALFORMED_REQUEST'],
  429: ['RATE_LIMITED'],
  431: ['MALFORMED_REQUEST'],
};

export interface AnswerLike {
  status: number;
  contentType: string | null;
  text: string;
  body: unknown;
}

export function answerOf(res: HttpAnswer): AnswerLike {
  return { status: res.status, contentType: res.headers.get('content-type'), text: res.text, body: res.body };
}

/**
 * A refusal in the contract's envelope, checked exactly: a 4xx (never a 5xx),
 * JSON, only the known keys with their types, a code the HTTP status may
 * carry, status `invalid` (`failed` for 429), a field named (and named in the
 * reason) for REQUIRED_FIELD_MISSING and INVALID_FIELD, and no offer price.
 * A HEAD answer has no body to check.
 */
export function expectErrorEnvelope(res: AnswerLike, method = 'GET'): void {
  const context = `${res.status} ${res.text.slice(0, 500)}`;
  expect([context, res.status >= 400 && res.status < 500]).toEqual([context, true]);
  if (method === 'HEAD') {
    expect(res.text).toBe('');
    return;
  }
  expect([context, res.contentType]).toEqual([context, expect.stringMatching(/^application\/json/)]);
  const body = res.body as Record<string, unknown>;
  expect([context, typeof body === 'object' && body !== null && !Array.isArray(body)]).toEqual([context, true]);
  expect([context, Object.keys(body).filter((k) => !ERROR_KEYS.has(k))]).toEqual([context, []]);
  expect([context, body.code]).toEqual([context, expect.any(String)]);
  expect(API_CODES).toContain(body.code);
  expect([context, CODES_BY_HTTP[res.status] ?? []]).toEqual([context, expect.arrayContaining([body.code])]);
  expect(OUTCOME_STATUSES).toContain(body.status);
  expect([context, body.status]).toEqual([context, res.status === 429 ? 'failed' : 'invalid']);
  expect([context, typeof body.reason === 'string' && body.reason.length > 0]).toEqual([context, true]);
  expect([context, body.success, typeof body.retryable]).toEqual([context, false, 'boolean']);
  if (body.error !== undefined) expect(typeof body.error).toBe('string');
  if (body.code === 'REQUIRED_FIELD_MISSING' || body.code === 'INVALID_FIELD') {
    expect([context, typeof body.field === 'string' && body.field.length > 0]).toEqual([context, true]);
    expect([context, (body.reason as string).includes(body.field as string)]).toEqual([context, true]);
  }
  if (body.errors !== undefined) {
    expect(Array.isArray(body.errors)).toBe(true);
    for (const e of body.errors as unknown[])
      expect(e).toEqual({ field: expect.any(String), code: expect.any(String), message: expect.any(String) });
  }
  expectNoPrice(res.text);
}

/** Prices set in the tests' catalogs: distinctive, so any answer that shows one is caught. */
export const DISTINCT_PRICES = [987.65, 876.54] as const;

/**
 * An answer shows no `price` key and none of DISTINCT_PRICES, as a number
 * (987.65, 987.650) or in cents (98765), each standing alone (not inside a
 * UUID or a longer number).
 */
export function expectNoPrice(text: string): void {
  expect(text).not.toMatch(/"price"/i);
  for (const p of DISTINCT_PRICES) {
    const [whole, cents] = p.toFixed(2).split('.');
    const forms = [new RegExp(`(?<![\\w.-])${whole}\\.${cents}0*(?![\\w])`), new RegExp(`(?<![\\w.-])${whole}${cents}(?![\\w])`)];
    for (const form of forms) expect([form.source, form.test(text)]).toEqual([form.source, false]);
  }
}

export interface RawAnswer extends AnswerLike {
  headers: Record<string, string>;
  /** Empty when the server closed the connection without answering. */
  statusLine: string;
}

/**
 * Sends bytes as they are on a new TCP connection and reads the answer until
 * the server closes it (send `Connection: close`). For requests fetch() refuses
 * to send: duplicated headers, control bytes, over-long header lines.
 */
export function rawRequest(port: number, request: string | Buffer, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? undefined : reject(e)));
    socket.on('close', () => resolve(parseRaw(Buffer.concat(chunks))));
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    });
    socket.write(request);
  });
}

function parseRaw(raw: Buffer): RawAnswer {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  const head = end >= 0 ? text.slice(0, end) : text;
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const bodyBytes = end >= 0 ? raw.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1')) : Buffer.alloc(0);
  const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : bodyBytes.length;
  const bodyText = bodyBytes.subarray(0, length).toString('utf8');
  let body: unknown;
  try {
    body = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    body = undefined;
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
  return { status, statusLine: statusLine ?? '', headers, contentType: headers['content-type'] ?? null, text: bodyText, body };
}
