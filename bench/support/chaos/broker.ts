import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../app-process';
import { rabbitmqctl } from '../bench-state';
import { TcpProxy } from '../tcp-proxy';

/** rabbitmqctl without blocking the event loop (the run's clients keep sending while the broker restarts). */
function rabbitmqctlAsync(...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('rabbitmqctl', ['-q', ...args], { timeout: 120_000 }, (err, _out, stderr) =>
      err ? reject(new Error(`rabbitmqctl ${args.join(' ')}: ${stderr || err.message}`)) : resolve(),
    );
  });
}

/**
 * How the fault run takes RabbitMQ away once. Both hit only the run's own
 * connections; the machine's broker, which other tests share, is never stopped.
 * - `proxy`: the apps reach the machine's broker through a TCP proxy the run
 *   owns. The outage destroys every connection through it and refuses new
 *   ones, then listens again. To the apps it is a broker restart (connections
 *   reset, channels and exclusive reply queues gone, unacked messages
 *   redelivered); the queues themselves stay up. Light: the CI-sized default.
 * - `own-node`: the run starts a RabbitMQ node of its own (`rabbitmq-server`
 *   with its own node name, port and data directory) and restarts it with
 *   `rabbitmqctl -n <node> stop_app` / `start_app`: a real broker restart, in
 *   which the quorum queues and their persistent messages must survive too.
 *   Costs an Erlang VM and about 20 s to boot; needs to run as root or the
 *   rabbitmq user (as rabbitmqctl does). The full run's default.
 */
export type BrokerFault = 'proxy' | 'own-node';

export interface ChaosBroker {
  fault: BrokerFault;
  /** The AMQP URL the apps use. */
  amqpUrl: string;
  vhost: string;
  /** The node for rabbitmqctl -n (own-node), or undefined for the machine's broker. */
  node?: string;
  /** Takes the broker away for `ms`, then brings it back. */
  outage(ms: number): Promise<void>;
  close(): Promise<void>;
}

const open = new Set<ChaosBroker>();

/** Closes every broker (proxy or node) still open: the run's own clean-up, and an interrupted run's. */
export async function closeChaosBrokers(): Promise<void> {
  await Promise.all([...open].map((b) => b.close()));
}

/** A proxy in front of the machine's broker at 127.0.0.1:5672; `amqpUrl` must name that address. */
export async function proxiedBroker(amqpUrl: string, vhost: string): Promise<ChaosBroker> {
  if (!/@127\.0\.0\.1:5672\//.test(amqpUrl))
    throw new Error(`AMQP_URL ${amqpUrl} does not name 127.0.0.1:5672; the proxy cannot sit in front of it`);
  const proxy = new TcpProxy(5672);
  await proxy.start();
  const broker: ChaosBroker = {
    fault: 'proxy',
    amqpUrl: amqpUrl.replace(/@127\.0\.0\.1:5672\//, `@127.0.0.1:${proxy.port}/`),
    vhost,
    async outage(ms) {
      await proxy.cut();
      try {
        await sleep(ms);
      } finally {
        await proxy.restore();
      }
    },
    async close() {
      open.delete(broker);
      await proxy.close();
    },
  };
  open.add(broker);
  return broker;
}

/** A RabbitMQ node of the run's own on a free port, with its data in a temporary directory; its vhost is `/`. */
export async function ownNodeBroker(run: string, log: (msg: string) => void): Promise<ChaosBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'lr-chaos-rabbitmq-'));
  const [port, distPort] = [await freePort(), await freePort()];
  const node = `lrchaos${run}@localhost`;
  writeFileSync(join(dir, 'rabbitmq.conf'), `listeners.tcp.default = 127.0.0.1:${port}\nloopback_users.guest = true\n`);
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  // rabbitmq-server runs as the rabbitmq user when started by root: that user must own the directory.
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'rabbitmq'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'rabbitmq'], { encoding: 'utf8' }).trim());
    for (const f of [dir, join(dir, 'rabbitmq.conf'), join(dir, 'enabled_plugins')]) chownSync(f, uid, gid);
  }
  log(`starting a RabbitMQ node of the run's own: ${node} on 127.0.0.1:${port}`);
  const child: ChildProcess = spawn('rabbitmq-server', [], {
    env: {
      ...process.env,
      RABBITMQ_NODENAME: node,
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
      RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(dir, 'log'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
      RABBITMQ_PID_FILE: join(dir, 'pid'),
    },
    stdio: 'ignore',
  });
  const ctl = (...args: string[]) => rabbitmqctl('-n', node, ...args);
  let closed = false;
  const broker: ChaosBroker = {
    fault: 'own-node',
    amqpUrl: `amqp://guest:guest@127.0.0.1:${port}/%2F`,
    vhost: '/',
    node,
    async outage(ms) {
      await rabbitmqctlAsync('-n', node, 'stop_app');
      try {
        await sleep(ms);
      } finally {
        await rabbitmqctlAsync('-n', node, 'start_app');
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      open.delete(broker);
      try {
        ctl('stop');
      } catch {
        /* not running */
      }
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  open.add(broker);
  try {
    // Waits for the pid file, then for the node to finish booting.
    ctl('wait', join(dir, 'pid'), '--timeout', '90');
  } catch (e) {
    await broker.close();
    throw new Error(`the run's RabbitMQ node did not start: ${(e as Error).message}`, { cause: e });
  }
  return broker;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
