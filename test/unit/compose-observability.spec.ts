import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { parse } from 'yaml';
import { DASHBOARD_FILE, GRAFANA_BUILTINS, expressionsOf, panelsOf, readDashboard, variablesIn } from '../support/grafana-dashboard';
import { RULES_FILE } from '../support/prometheus-rules';

/**
 * The Compose profile `observability` of docker-compose.yml, offline (no
 * Docker, no image pulled), the way test/unit/architecture.spec.ts checks the
 * apps' services: Prometheus and Grafana run only with the profile, from
 * pinned images; Prometheus reads the mounted configuration, which scrapes
 * every app service on the port it listens on and loads the rules file;
 * Grafana is provisioned with that Prometheus and the dashboard, whose JSON is
 * checked here too (its queries run against a live Prometheus in
 * test/e2e/prometheus-queries.e2e-spec.ts).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- docker-compose.yml and the monitoring files parsed from YAML, read by any path the checks name; their shape is what they check.
type Any = any;

const ROOT = resolve(__dirname, '../..');
const PROFILE = 'observability';
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Any> };
const services = compose.services;
const apps = readdirSync(join(ROOT, 'apps'))
  .filter((n) => statSync(join(ROOT, 'apps', n)).isDirectory() && n !== 'ops')
  .sort();

/** A service's bind mounts: repository path (from `./…`) -> container path. */
function mounts(service: string): Array<{ source: string; target: string; mode?: string }> {
  return (services[service].volumes ?? [])
    .map((v: string) => v.split(':'))
    .filter(([source]: string[]) => source.startsWith('./'))
    .map(([source, target, mode]: string[]) => ({ source: posix.normalize(source), target, mode }));
}

/** The repository path a container path of a service comes from (through its bind mounts), or undefined. */
function sourceOf(service: string, containerPath: string): string | undefined {
  for (const m of mounts(service)) {
    if (containerPath === m.target) return m.source;
    if (containerPath.startsWith(`${m.target}/`)) return posix.join(m.source, containerPath.slice(m.target.length + 1));
  }
  return undefined;
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** Where a service answers /metrics: its management port (MANAGEMENT_PORT; a worker's HTTP_PORT). */
const managementPort = (service: string): string | undefined => {
  const env = services[service].environment ?? {};
  return String(env.MANAGEMENT_PORT ?? env.HTTP_PORT ?? '');
};

describe('docker-compose.yml, profile observability', () => {
  it('runs Prometheus and Grafana only with the profile; every other service as before', () => {
    const profiled = Object.entries(services).filter(([, s]) => s.profiles !== undefined);
    expect(profiled.map(([name, s]) => [name, s.profiles])).toEqual([
      ['prometheus', [PROFILE]],
      ['grafana', [PROFILE]],
    ]);
  });

  it.each(['prometheus', 'grafana'])(
    '%s runs an image pinned to a release (never latest), mounting only files that exist, read-only',
    (name) => {
      const image: string = services[name].image;
      expect(image).toMatch(/^[a-z0-9./-]+:v?\d+\.\d+\.\d+$/);
      expect(mounts(name).length).toBeGreaterThan(0);
      for (const m of mounts(name)) expect([m.source, existsSync(join(ROOT, m.source)), m.mode]).toEqual([m.source, true, 'ro']);
    },
  );

  describe('Prometheus', () => {
    const configPath = (services.prometheus.command as string[]).find((a) => a.startsWith('--config.file='))!.split('=')[1];
    const configSource = sourceOf('prometheus', configPath)!;
    const config = parse(read(configSource)) as Any;

    it('reads the configuration of deploy/prometheus', () => {
      expect(configSource).toBe('deploy/prometheus/prometheus.yml');
    });

    it(`loads the rules file ${RULES_FILE} from its mount`, () => {
      const loaded = (config.rule_files as string[]).flatMap((pattern) => {
        const inContainer = posix.join(posix.dirname(configPath), pattern);
        const source = sourceOf('prometheus', posix.dirname(inContainer));
        if (!source) return [];
        const glob = new RegExp(`^${posix.basename(inContainer).replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`);
        return readdirSync(join(ROOT, source))
          .filter((f) => glob.test(f))
          .map((f) => posix.join(source, f));
      });
      expect(loaded).toEqual([RULES_FILE]);
    });

    it('scrapes every app service on its management port, as job lead-router (the rules select it)', () => {
      const jobs = config.scrape_configs as Any[];
      expect(jobs.map((j) => j.job_name)).toEqual(['lead-router']);
      expect(jobs[0].metrics_path ?? '/metrics').toBe('/metrics');
      const targets = jobs[0].static_configs.flatMap((c: Any) => c.targets).sort();
      expect(targets).toEqual(apps.map((a) => `${a}:${managementPort(a)}`).sort());
      for (const a of apps) expect([a, managementPort(a)]).toEqual([a, expect.stringMatching(/^\d+$/)]);
    });

    it('is ready-checked, and publishes its port', () => {
      expect(services.prometheus.healthcheck.test.join(' ')).toContain('http://127.0.0.1:9090/-/ready');
      expect(services.prometheus.ports).toEqual([expect.stringMatching(/:9090$/)]);
    });
  });

  describe('Grafana', () => {
    const provisioning = sourceOf('grafana', '/etc/grafana/provisioning')!;
    const datasources = readdirSync(join(ROOT, provisioning, 'datasources')).flatMap(
      (f) => (parse(read(posix.join(provisioning, 'datasources', f))) as Any).datasources,
    );
    const providers = readdirSync(join(ROOT, provisioning, 'dashboards')).flatMap(
      (f) => (parse(read(posix.join(provisioning, 'dashboards', f))) as Any).providers,
    );

    it('is provisioned with the profile’s Prometheus as its default data source', () => {
      expect(datasources).toEqual([expect.objectContaining({ type: 'prometheus', url: 'http://prometheus:9090', isDefault: true })]);
      expect(services.grafana.depends_on).toEqual({ prometheus: { condition: 'service_healthy' } });
    });

    it(`is provisioned with the dashboard ${DASHBOARD_FILE}, which is also its home`, () => {
      expect(providers).toHaveLength(1);
      expect(providers[0].type).toBe('file');
      const dir = sourceOf('grafana', providers[0].options.path)!;
      expect(readdirSync(join(ROOT, dir)).map((f) => posix.join(dir, f))).toEqual([DASHBOARD_FILE]);
      expect(sourceOf('grafana', services.grafana.environment.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH)).toBe(DASHBOARD_FILE);
    });

    it('publishes its port apart from every other service’s', () => {
      expect(services.grafana.ports).toEqual([expect.stringMatching(/:3000$/)]);
      // "${PUBLISH_ADDRESS:-0.0.0.0}:${X_PUBLISHED_PORT:-9090}:9090": the default host port, after the address knob.
      const hostPort = (mapping: string) =>
        /^\$\{PUBLISH_ADDRESS:-0\.0\.0\.0\}:(?:\$\{[A-Z_]+_PUBLISHED_PORT:-(\d+)\}|(\d+)):\d+$/.exec(mapping)?.slice(1).find(Boolean);
      const published = Object.values(services)
        .flatMap((s) => (s.ports ?? []) as string[])
        .map(hostPort);
      expect(published.length).toBeGreaterThanOrEqual(4);
      expect(published.every(Boolean)).toBe(true);
      expect(new Set(published).size).toBe(published.length);
      // Never a port the machine's own services hold by default (PostgreSQL, Redis, RabbitMQ, MariaDB, MQTT, NATS).
      expect(published.filter((p) => ['5432', '6379', '5672', '3306', '1883', '4222'].includes(p!))).toEqual([]);
    });
  });
});

describe(`the dashboard ${DASHBOARD_FILE}`, () => {
  const d = readDashboard();
  const panels = panelsOf(d);
  const variables = d.templating.list.map((v) => v.name);

  it('has a stable uid, and its sections: traffic, latency, decisions, partners, queues, dependencies, processes', () => {
    expect(d.uid).toBe('lead-router');
    expect(panels.filter((p) => p.type === 'row').map((p) => p.title)).toEqual([
      'Traffic',
      'Latency',
      'Decisions',
      'Partners',
      'Queues',
      'Dependencies',
      'Processes',
    ]);
  });

  it('gives every panel a unique id and a place on the 24-column grid, none overlapping', () => {
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    const cells = new Set<string>();
    for (const p of panels) {
      const { x, y, w, h } = p.gridPos;
      expect([p.title, x >= 0 && w > 0 && x + w <= 24 && h > 0]).toEqual([p.title, true]);
      for (let i = x; i < x + w; i++) {
        for (let j = y; j < y + h; j++) {
          expect([p.title, cells.has(`${i},${j}`)]).toEqual([p.title, false]);
          cells.add(`${i},${j}`);
        }
      }
    }
  });

  it('queries through its data source variable, each panel’s targets with unique refIds', () => {
    expect(d.templating.list.find((v) => v.name === 'datasource')).toEqual(
      expect.objectContaining({ type: 'datasource', query: 'prometheus' }),
    );
    for (const p of panels.filter((x) => x.type !== 'row')) {
      expect([p.title, p.datasource]).toEqual([p.title, { type: 'prometheus', uid: '${datasource}' }]);
      const targets = p.targets ?? [];
      expect([p.title, targets.length > 0, new Set(targets.map((t) => t.refId)).size === targets.length]).toEqual([p.title, true, true]);
      for (const t of targets) expect([p.title, t.datasource?.uid, t.expr.trim().length > 0]).toEqual([p.title, '${datasource}', true]);
    }
  });

  it('uses only its own variables and Grafana’s', () => {
    for (const { name, expr } of expressionsOf(d)) {
      expect([name, variablesIn(expr).filter((v) => !variables.includes(v) && !GRAFANA_BUILTINS.includes(v))]).toEqual([name, []]);
    }
    const app = d.templating.list.find((v) => v.name === 'app')!;
    expect(app).toEqual(expect.objectContaining({ includeAll: true, allValue: '.*' }));
  });
});
