import { Socket, createConnection, createServer, Server, AddressInfo } from 'node:net';
import { TcpProxy } from '../../support/tcp-proxy';

/** An echo server stands in for a database or broker. */
function echoServer(): Promise<Server> {
  const server = createServer((s) => s.pipe(s));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function connect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ port, host: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
}

function roundTrip(s: Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    s.once('data', (d) => resolve(d.toString()));
    s.write(text);
  });
}

describe('TcpProxy (test support)', () => {
  let upstream: Server;
  let proxy: TcpProxy;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    upstream = await echoServer();
    proxy = new TcpProxy((upstream.address() as AddressInfo).port);
    await proxy.start();
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await proxy.close();
    await new Promise((r) => upstream.close(r));
  });

  it('forwards, cuts (resets open connections, refuses new ones) and restores on the same port', async () => {
    const port = proxy.port;
    const a = await connect(port);
    sockets.push(a);
    expect(await roundTrip(a, 'hello')).toBe('hello');

    const closed = new Promise((r) => a.once('close', r));
    await proxy.cut();
    await closed;
    expect(proxy.listening).toBe(false);
    await expect(connect(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    await proxy.restore();
    expect(proxy.port).toBe(port);
    const b = await connect(port);
    sockets.push(b);
    expect(await roundTrip(b, 'again')).toBe('again');
  });
});
