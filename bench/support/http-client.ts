import { Agent, request } from 'node:http';

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Answer {
  status: number;
  body: Buffer;
}

/** A keep-alive agent; `maxSockets` bounds the connections (open loop: unbounded, so waiting shows as latency). */
export function keepAliveAgent(maxSockets = Infinity): Agent {
  return new Agent({ keepAlive: true, maxSockets, maxFreeSockets: 1024, scheduling: 'fifo' });
}

/** One HTTP call over the agent; a transport error or `timeoutMs` without an answer rejects. */
export function send(agent: Agent, baseUrl: URL, call: Call, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...call.headers };
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(call.body);
    }
    const req = request(
      { agent, host: baseUrl.hostname, port: baseUrl.port, method: call.method, path: call.path, headers, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(call.body);
  });
}
