import { AddressInfo, Server, Socket, createConnection, createServer } from 'node:net';

/**
 * A TCP proxy for outage tests and the fault run (bench/chaos.ts): point a
 * client at `127.0.0.1:<port>` instead of PostgreSQL, Redis or RabbitMQ, then
 * `cut()` to make the dependency vanish (every open connection is destroyed
 * and new ones are refused, because nothing listens any more) and `restore()`
 * to bring it back on the same port.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private boundPort = 0;
  private stalled = false;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
    /** 0: any free port, chosen at start() and kept for restore(). */
    private readonly listenPort = 0,
  ) {}

  get port(): number {
    if (!this.boundPort) throw new Error('TcpProxy has not been started');
    return this.boundPort;
  }

  get listening(): boolean {
    return this.server !== undefined;
  }

  async start(): Promise<void> {
    await this.listen(this.listenPort);
  }

  /** Destroys every proxied connection and stops listening: clients see resets, then refused connections. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * A hung dependency: established connections stop carrying data and new ones
   * are accepted but never answered (no reset, no refusal), so only a client's
   * own deadline ends its wait. `restore()` ends the stall.
   */
  async stall(): Promise<void> {
    this.stalled = true;
    for (const s of this.sockets) {
      s.unpipe();
      s.pause();
    }
    if (!this.server) await this.listen(this.port);
  }

  /** Listens again on the same port (after cut), or forwards again (after stall: the stalled connections are dropped). */
  async restore(): Promise<void> {
    if (this.stalled) {
      this.stalled = false;
      for (const s of this.sockets) s.destroy();
      this.sockets.clear();
    }
    if (this.server) return;
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.cut();
  }

  private async listen(port: number): Promise<void> {
    const server = createServer((client) => this.pipe(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.boundPort = (server.address() as AddressInfo).port;
    this.server = server;
  }

  private pipe(client: Socket): void {
    if (this.stalled) {
      this.sockets.add(client);
      client.on('error', () => undefined);
      client.on('close', () => this.sockets.delete(client));
      client.pause();
      return;
    }
    const upstream = createConnection({ port: this.targetPort, host: this.targetHost });
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.setNoDelay(true);
      // Either side failing ends the pair, as a dropped network path would.
      s.on('error', () => undefined);
      s.on('close', () => {
        this.sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
