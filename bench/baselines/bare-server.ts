import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Pool, PoolClient } from 'pg';

export type Handler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => Promise<void>;

/** Answers a JSON body with its length, as the gateway does. */
export function answerJson(res: ServerResponse, status: number, json: string | Buffer): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

/**
 * A bare node:http server for a baseline: no framework, no guards, no
 * logging; `/health/ready` for the launcher, everything else to `handle`.
 * Listens on PORT and closes its resources on SIGTERM.
 */
export function serveBare(handle: Handler, close: () => Promise<void>): void {
  const server = createServer((req, res) => {
    if (req.url === '/health/ready') return answerJson(res, 200, '{"status":"ok"}');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, Buffer.concat(chunks), res).catch((e: unknown) => answerJson(res, 500, JSON.stringify({ error: String(e) })));
    });
  });
  server.keepAliveTimeout = 72_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void close().finally(() => process.exit(0));
  });
}

/** Runs `work` in one transaction on a pooled client: COMMIT when it resolves, ROLLBACK (and rethrow) when it throws. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK');
    throw e;
  } finally {
    client.release();
  }
}
