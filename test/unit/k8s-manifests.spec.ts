import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AppName } from '@lr/config';
import { CONSUMERS } from '@lr/messaging';
import {
  containerEnv,
  deploymentProblems,
  find,
  hpaProblems,
  imageProblems,
  migrationJobProblems,
  namespaceProblems,
  podMonitorProblems,
  replicaOwnershipProblems,
  retentionCronJobProblems,
  scaledObjectProblems,
  schemaVariables,
  secretProblems,
  serviceProblems,
  unknownVariables,
} from '../support/k8s-checks';
import { buildProgram } from '../../apps/ops/src/cli';
import { CliContext } from '../../apps/ops/src/context';
import { MONITORING_API_VERSION, monitoringFieldErrors } from '../support/monitoring-crds';
import { K8sObject, filesOfKustomization, parseImage, readYamlDocuments, strategicMerge, yamlFilesUnder } from '../support/kustomize-lite';
import {
  all,
  clone,
  K8S,
  label,
  monitoringOf,
  monitoringSets,
  overlayNames,
  overlays,
  productionSet,
  rel,
  rendered,
  ROOT,
} from '../support/k8s-rendered';

/**
 * k8s/ checked offline, without a cluster or a kustomize binary:
 *  - every YAML file under k8s/ parses, and every one is used by a kustomization;
 *  - the base and each overlay, rendered by test/support/k8s-rendered.ts, hold a
 *    full set (their validation against the Kubernetes and KEDA schemas, in a
 *    child node, is test/tools/k8s-schemas.tool-spec.ts);
 *  - each overlay is a working deployment of this code base: a Deployment, probes,
 *    resources and a PodDisruptionBudget for every app, the real loadConfig accepts
 *    each container's environment, every ScaledObject reads its worker's own queue
 *    as libs/messaging's topology names it, the HPA scales the gateway, the
 *    migration Job runs `npm run migrate`, and the retention CronJob runs
 *    `npm run ops -- retention run` daily, one at a time, with the same image
 *    and settings (rules: test/support/k8s-checks.ts);
 *  - the monitoring kustomizations (k8s/monitoring, k8s/overlays/<env>/monitoring:
 *    Prometheus Operator kinds, kept out of the base) have only the fields of the
 *    operator's CRDs (test/support/monitoring-crds.ts), and scrape every app of
 *    their overlay on its metrics port, in its namespace.
 * The overlays' secretGenerator reads secrets.env, which is never committed;
 * they are rendered with secrets.env.example in its place.
 */

/** The sandbox (simulated schools and partners) belongs to staging only. */
const SANDBOX_IN = ['staging'];
const apps = readdirSync(join(ROOT, 'apps'))
  .filter((n) => statSync(join(ROOT, 'apps', n)).isDirectory() && n !== 'ops')
  .sort() as AppName[];

const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const migrateScript = scripts.migrate;
/** `npm run ops -- <args>` runs this and the args. */
const opsScript = scripts.ops;
/** Whether the operator CLI has the command these args name, with these options (its own commander program, no connection made). */
function isOpsCommand(args: string[]): boolean {
  let command = buildProgram(new CliContext({ out: () => undefined, err: () => undefined }, {}));
  for (const arg of args) {
    if (arg.startsWith('-')) {
      if (!command.options.some((o) => o.long === arg)) return false;
      continue;
    }
    const sub = command.commands.find((c) => c.name() === arg);
    if (!sub) return false;
    command = sub;
  }
  return command.commands.length === 0;
}

describe('k8s/ manifests', () => {
  describe('files', () => {
    const files = yamlFilesUnder(K8S);

    it('has a base and the staging and production overlays', () => {
      expect(existsSync(join(K8S, 'base/kustomization.yaml'))).toBe(true);
      expect(overlayNames).toEqual(['production', 'staging']);
      expect(files.length).toBeGreaterThan(overlayNames.length + 1);
    });

    it.each(files.map(rel))('%s parses as YAML', (file) => {
      expect(readYamlDocuments(join(ROOT, file)).length).toBeGreaterThan(0);
    });

    it('uses every YAML file under k8s/ in some kustomization (nothing lies there unapplied)', () => {
      const used = new Set([...rendered, ...monitoringSets].flatMap((r) => filesOfKustomization(r.dir)));
      expect(files.filter((f) => !used.has(f)).map(rel)).toEqual([]);
    });

    it('keeps the overlays’ secrets out of git and ships an example of each', () => {
      const ignore = readFileSync(join(ROOT, '.gitignore'), 'utf8');
      expect(ignore).toMatch(/^k8s\/overlays\/\*\/secrets\.env$/m);
      for (const name of overlayNames) {
        const example = readFileSync(join(K8S, 'overlays', name, 'secrets.env.example'), 'utf8');
        expect(example).toMatch(/EXAMPLE/);
      }
    });
  });

  // Each object's schema and fields: test/tools/k8s-schemas.tool-spec.ts.
  describe('the rendered sets', () => {
    it('renders a full set for every overlay', () => {
      for (const o of overlays) {
        for (const kind of [
          'Namespace',
          'ConfigMap',
          'Secret',
          'Job',
          'CronJob',
          'Deployment',
          'Service',
          'PodDisruptionBudget',
          'HorizontalPodAutoscaler',
          'ScaledObject',
          'TriggerAuthentication',
        ]) {
          expect([o.name, kind, o.objects.some((x) => x.kind === kind)]).toEqual([o.name, kind, true]);
        }
      }
    });

    it('keeps the Prometheus Operator’s kinds out of the base and the overlays (a cluster without its CRDs applies them)', () => {
      expect(all.filter((a) => a.object.apiVersion === MONITORING_API_VERSION).map((a) => label(a.set, a.object))).toEqual([]);
    });
  });

  describe('monitoring (Prometheus Operator CRDs, checked by test/support/monitoring-crds.ts)', () => {
    const objects = monitoringSets.flatMap((m) => m.objects.map((o) => ({ set: m.name, object: o })));

    it('renders a PodMonitor and a PrometheusRule for every overlay', () => {
      for (const name of overlayNames) {
        expect([
          name,
          monitoringOf(name)
            .map((o) => o.kind)
            .sort(),
        ]).toEqual([name, ['PodMonitor', 'PrometheusRule']]);
      }
    });

    it.each(objects.map((a) => [label(a.set, a.object), a.object] as const))('%s has only the CRD’s fields, well typed', (_name, o) => {
      expect(monitoringFieldErrors(o)).toEqual([]);
    });
  });

  describe('the validators reject broken manifests', () => {
    const monitor = () => clone(monitoringOf('production').find((o) => o.kind === 'PodMonitor')!) as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
    const rules = () => clone(monitoringOf('production').find((o) => o.kind === 'PrometheusRule')!) as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
    const brokenMonitoring: Array<[string, unknown, RegExp]> = [];
    {
      const m = monitor();
      m.spec.podMetricsEndpoints[0].intervall = '15s';
      brokenMonitoring.push(['an unknown PodMonitor field (intervall)', m, /intervall is not a field/]);
    }
    {
      const m = monitor();
      m.spec.podMetricsEndpoints[0].interval = '15 s';
      brokenMonitoring.push(['a malformed scrape interval', m, /interval "15 s" does not match/]);
    }
    {
      const m = monitor();
      delete m.spec.selector;
      brokenMonitoring.push(['a PodMonitor without a selector', m, /selector is required/]);
    }
    const firstRule = (r: any, kind: 'record' | 'alert') => r.spec.groups.flatMap((g: any) => g.rules).find((x: any) => kind in x); // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
    {
      const r = rules();
      firstRule(r, 'record').alert = 'Both';
      brokenMonitoring.push(['a rule that is both a record and an alert', r, /exactly one of record and alert/]);
    }
    {
      const r = rules();
      firstRule(r, 'alert').for = 5;
      brokenMonitoring.push(['a `for` that is not a duration', r, /for must be string/]);
    }
    {
      const r = rules();
      r.kind = 'PrometheusRules';
      brokenMonitoring.push(['a kind the operator does not have', r, /no schema for monitoring\.coreos\.com\/v1 PrometheusRules/]);
    }
    it.each(brokenMonitoring.map(([what, o, pattern]) => [what, o, pattern] as const))('%s', (_what, o, pattern) => {
      expect(monitoringFieldErrors(o as K8sObject).join('\n')).toMatch(pattern);
    });
  });

  describe.each(overlays.map((o) => [o.name, o] as const))('overlay %s', (name, { objects }) => {
    const expected = apps.filter((a) => a !== 'sandbox' || SANDBOX_IN.includes(name));

    it.each(expected)('runs %s: Deployment of the one image, probes on its port, resources, security, grace, PDB, Service', (app) => {
      expect(deploymentProblems(objects, app)).toEqual([]);
    });

    it('runs nothing else (no ops server; the sandbox only where it belongs)', () => {
      expect(
        objects
          .filter((o) => o.kind === 'Deployment')
          .map((o) => o.metadata.name)
          .sort(),
      ).toEqual([...expected].sort());
    });

    it('sets only variables that libs/config knows', () => {
      const known = schemaVariables();
      expect(known.has('HTTP_PORT') && known.has('AMQP_PREFIX') && known.has('DATABASE_URL')).toBe(true);
      const configMaps = objects.filter((o) => o.kind === 'ConfigMap' || o.kind === 'Secret');
      const names = configMaps.flatMap((o) => Object.keys(((o as { data?: object }).data ?? {}) as object));
      expect(unknownVariables({ values: {}, names, problems: [] }, known)).toEqual([]);
    });

    it('puts every object in its one Namespace', () => expect(namespaceProblems(objects)).toEqual([]));
    it('keeps the connection settings in the Secret', () => expect(secretProblems(objects)).toEqual([]));
    it('runs one image, pinned to a release', () => expect(imageProblems(objects, parseImage)).toEqual([]));
    it('has Services that reach their pods', () => expect(serviceProblems(objects)).toEqual([]));
    it('scales the gateway with an HPA on CPU', () => expect(hpaProblems(objects)).toEqual([]));
    it('scales each worker with KEDA on its own queue, as the topology names it', () => {
      expect(scaledObjectProblems(objects, CONSUMERS)).toEqual([]);
    });
    it('leaves replicas to the autoscalers', () => expect(replicaOwnershipProblems(objects)).toEqual([]));
    it('migrates with a Job running npm run migrate, labelled for the first deploy step', () => {
      expect(migrationJobProblems(objects, migrateScript)).toEqual([]);
    });
    it('runs the retention daily with a CronJob: npm run ops -- retention run, in UTC, one at a time, the migration Job’s image and settings, after the migration step', () => {
      expect(retentionCronJobProblems(objects, opsScript, isOpsCommand)).toEqual([]);
    });
    it('is scraped by its monitoring: every app’s pods on their metrics port, in its namespace, under the rules’ job', () => {
      expect(podMonitorProblems(objects, monitoringOf(name))).toEqual([]);
    });
  });

  describe('the overlay checks catch broken manifests', () => {
    type Mutable = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
    const mutate = (kind: string, name: string, change: (o: Mutable) => void) => {
      const set = productionSet();
      change(find(set, kind, name));
      return set;
    };

    it('a ScaledObject on another worker’s queue, or on a queue the topology does not declare', () => {
      const other = mutate('ScaledObject', 'delivery', (s) => (s.spec.triggers[0].metadata.queueName = 'lr.checks'));
      expect(scaledObjectProblems(other, CONSUMERS)).toEqual(['ScaledObject delivery: queue lr.checks, but delivery consumes lr.delivery']);
      const unknown = mutate('ScaledObject', 'checks', (s) => (s.spec.triggers[0].metadata.queueName = 'lr.check'));
      expect(scaledObjectProblems(unknown, CONSUMERS)).toEqual([
        'ScaledObject checks: queue lr.check is not a consumer queue of the topology',
        'ScaledObject checks: queue lr.check, but checks consumes lr.checks',
      ]);
    });

    it('a prefix change in the ConfigMap that the ScaledObjects do not follow', () => {
      const set = mutate('ConfigMap', 'lead-router-config', (c) => (c.data.AMQP_PREFIX = 'leads'));
      expect(scaledObjectProblems(set, CONSUMERS)).toContain('ScaledObject checks: queue lr.checks, but checks consumes leads.checks');
    });

    it('a ScaledObject on a Deployment that does not exist, and a worker left without one', () => {
      const set = mutate('ScaledObject', 'checks', (s) => (s.spec.scaleTargetRef.name = 'check'));
      expect(scaledObjectProblems(set, CONSUMERS)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^ScaledObjects target \[/),
          'ScaledObject checks targets Deployment check, which is not in this set',
        ]),
      );
    });

    it('an HPA on a worker', () => {
      const set = mutate('HorizontalPodAutoscaler', 'gateway', (h) => (h.spec.scaleTargetRef.name = 'checks'));
      expect(hpaProblems(set)).toContain('HPA gateway targets Deployment checks, not Deployment gateway');
      expect(replicaOwnershipProblems(set)).toContain('Deployment checks is scaled by HPA gateway and ScaledObject checks');
    });

    it('a probe on the wrong port, a missing probe, a missing limit, a writable root, too short a grace', () => {
      const set = mutate('Deployment', 'checks', (d) => {
        const c = d.spec.template.spec.containers[0];
        c.readinessProbe.httpGet.port = 3000;
        delete c.livenessProbe;
        delete c.resources.limits.memory;
        c.securityContext.readOnlyRootFilesystem = false;
        d.spec.template.spec.terminationGracePeriodSeconds = 5;
      });
      expect(deploymentProblems(set, 'checks')).toEqual([
        'checks: no livenessProbe',
        'checks: readinessProbe on port 3000, but the app answers probes on 3003',
        'app: no readable memory limit',
        'app: root filesystem is writable',
        'checks: terminationGracePeriodSeconds 5 < preStop 0 s + SHUTDOWN_GRACE_MS 10000 ms + 2000 ms',
      ]);
    });

    it('an env var libs/config does not know, and a value it refuses', () => {
      const set = mutate('Deployment', 'delivery', (d) => {
        d.spec.template.spec.containers[0].env.push({ name: 'AMQP_PREFETCH_COUNT', value: '10' }, { name: 'HTTP_PORT', value: 'http' });
      });
      const problems = deploymentProblems(set, 'delivery');
      expect(problems).toContain('AMQP_PREFETCH_COUNT is not a variable of libs/config/src/env.schema.ts');
      expect(problems.some((p) => p.startsWith("loadConfig('delivery') refuses") && p.includes('HTTP_PORT'))).toBe(true);
    });

    it('a Deployment without its PodDisruptionBudget', () => {
      const set = productionSet().filter((o) => !(o.kind === 'PodDisruptionBudget' && o.metadata.name === 'partner-adapter'));
      expect(deploymentProblems(set, 'partner-adapter')).toEqual(['partner-adapter: 0 PodDisruptionBudgets select its pods, expected 1']);
    });

    it('a migration Job that runs something else or misses its Secret', () => {
      const set = mutate(
        'Job',
        'lead-router-migrate',
        (j) => (j.spec.template.spec.containers[0].command = ['node', 'dist/apps/ops/src/main.js', 'db', 'status']),
      );
      expect(migrationJobProblems(set, migrateScript)).toEqual([
        `Job lead-router-migrate runs "node dist/apps/ops/src/main.js db status", npm run migrate is "${migrateScript}"`,
      ]);
      const noSecret = productionSet().filter((o) => o.kind !== 'Secret');
      expect(migrationJobProblems(noSecret, migrateScript)).toContain('envFrom names Secret lead-router-secrets, which is not in this set');
    });

    it('a retention CronJob that runs too often, side by side, without bound, something else, or before the migration', () => {
      const cron = 'lead-router-retention';
      const containerOf = (c: Mutable) => c.spec.jobTemplate.spec.template.spec.containers[0];
      const often = mutate('CronJob', cron, (c) => {
        c.spec.schedule = '*/5 * * * *';
        c.spec.timeZone = 'America/New_York';
        c.spec.concurrencyPolicy = 'Allow';
        delete c.spec.jobTemplate.spec.activeDeadlineSeconds;
      });
      expect(retentionCronJobProblems(often, opsScript, isOpsCommand)).toEqual([
        `CronJob ${cron}: schedule "*/5 * * * *" is not once a day`,
        `CronJob ${cron}: timeZone America/New_York, not UTC`,
        `CronJob ${cron}: concurrencyPolicy Allow, not Forbid`,
        `CronJob ${cron}: activeDeadlineSeconds undefined, not within a day`,
      ]);
      const dry = mutate('CronJob', cron, (c) => (containerOf(c).args = ['--dry-run']));
      expect(retentionCronJobProblems(dry, opsScript, isOpsCommand)).toEqual([`CronJob ${cron} only ever dry-runs`]);
      const unknown = mutate(
        'CronJob',
        cron,
        (c) => (containerOf(c).command = ['node', 'dist/apps/ops/src/main.js', 'retention', 'run', '--yes']),
      );
      expect(retentionCronJobProblems(unknown, opsScript, isOpsCommand)).toEqual([
        `CronJob ${cron} runs "node dist/apps/ops/src/main.js retention run --yes", not "${opsScript} retention run"`,
      ]);
      const rootAndToken = mutate('CronJob', cron, (c) => {
        c.spec.jobTemplate.spec.template.spec.securityContext.runAsUser = 0;
        c.spec.jobTemplate.spec.template.spec.automountServiceAccountToken = true;
        containerOf(c).image = 'lead-router:latest';
      });
      expect(retentionCronJobProblems(rootAndToken, opsScript, isOpsCommand)).toEqual([
        'retention: runAsUser is 0, not 1000 (node)',
        `CronJob ${cron} mounts a service account token`,
        `CronJob ${cron} runs lead-router:latest, the apps run registry.example.com/lead-router:0.1.0`,
      ]);
      const early = mutate('CronJob', cron, (c) => (c.metadata.labels['lead-router/deploy-step'] = 'migrate'));
      expect(retentionCronJobProblems(early, opsScript, isOpsCommand)).toEqual([
        `CronJob ${cron} would be applied in the migration step, before the schema it needs`,
      ]);
      const noSecret = productionSet().filter((o) => o.kind !== 'Secret');
      expect(retentionCronJobProblems(noSecret, opsScript, isOpsCommand)).toEqual(
        expect.arrayContaining([
          'envFrom names Secret lead-router-secrets, which is not in this set',
          `CronJob ${cron} gets no DATABASE_URL`,
        ]),
      );
      const badSetting = mutate('ConfigMap', 'lead-router-config', (c) => (c.data.RETENTION_SEARCH_DAYS = '1'));
      expect(retentionCronJobProblems(badSetting, opsScript, isOpsCommand).join('\n')).toMatch(
        /loadConfig\('ops'\) refuses [\s\S]*RETENTION_SEARCH_DAYS=1: .*less than 3/,
      );
      expect(imageProblems(rootAndToken, parseImage)).toContain(
        'containers run 2 images (registry.example.com/lead-router:0.1.0, lead-router:latest), expected one',
      );
    });

    it('a PodMonitor on a port the pods do not name, on pods it does not select, or in another namespace', () => {
      const apps = productionSet();
      const monitoring = () => clone(monitoringOf('production'));
      const podMonitor = (set: K8sObject[]) => set.find((o) => o.kind === 'PodMonitor') as Mutable;
      const wrongPort = monitoring();
      podMonitor(wrongPort).spec.podMetricsEndpoints[0].port = 'metrics';
      expect(podMonitorProblems(apps, wrongPort)).toContain('gateway: PodMonitor lead-router names no port of its container (metrics)');
      const narrow = monitoring();
      podMonitor(narrow).spec.selector.matchLabels['app.kubernetes.io/component'] = 'worker';
      expect(podMonitorProblems(apps, narrow)).toEqual(['gateway: 0 PodMonitors select its pods, expected 1']);
      const elsewhere = monitoring();
      for (const o of elsewhere) o.metadata.namespace = 'lead-router-staging';
      expect(podMonitorProblems(apps, elsewhere)).toContain(
        'PodMonitor lead-router is in namespace lead-router-staging, the apps in lead-router-production',
      );
      const noJob = monitoring();
      delete podMonitor(noJob).spec.jobLabel;
      expect(podMonitorProblems(apps, noJob)).toContain(
        'checks: PodMonitor lead-router gives job lead-router-production/lead-router, the alert rules select job lead-router',
      );
      const portChanged = productionSet();
      const checks = find(portChanged, 'Deployment', 'checks') as Mutable;
      checks.spec.template.spec.containers[0].ports[0].name = 'web';
      expect(podMonitorProblems(portChanged, monitoringOf('production'))).toContain(
        'checks: PodMonitor lead-router names no port of its container (management)',
      );
    });

    it('reads the Secret the way the pods get it', () => {
      const set = productionSet();
      const { values } = containerEnv(set, (find(set, 'Job', 'lead-router-migrate') as any).spec.template.spec.containers[0]); // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
      const example = readFileSync(join(K8S, 'overlays/production/secrets.env.example'), 'utf8');
      expect(example).toContain(`DATABASE_URL=${values.DATABASE_URL}`);
      expect(values).toMatchObject({ APP: 'ops', AMQP_PREFIX: 'lr' });
    });
  });

  describe('the kustomize subset (test/support/kustomize-lite.ts)', () => {
    it('merges containers by name, maps recursively, and deletes on null', () => {
      const target = {
        spec: {
          containers: [
            { name: 'a', image: 'x', resources: { requests: { cpu: '1' }, limits: { cpu: '2' } } },
            { name: 'b', image: 'y' },
          ],
        },
        keep: 1,
        drop: 2,
      };
      strategicMerge(
        target as never,
        { spec: { containers: [{ name: 'a', resources: { requests: { cpu: '50m' } } }] }, drop: null } as never,
        true,
        't',
      );
      expect(target).toEqual({
        spec: {
          containers: [
            { name: 'a', image: 'x', resources: { requests: { cpu: '50m' }, limits: { cpu: '2' } } },
            { name: 'b', image: 'y' },
          ],
        },
        keep: 1,
      });
    });

    it('refuses a list merge it does not know on a built-in kind, and replaces lists of custom resources', () => {
      expect(() => strategicMerge({ tolerations: [] } as never, { tolerations: [{ key: 'k' }] } as never, true, 't')).toThrow(
        /not implemented/,
      );
      const custom = { triggers: [{ type: 'a' }, { type: 'b' }] };
      strategicMerge(custom as never, { triggers: [{ type: 'c' }] } as never, false, 't');
      expect(custom).toEqual({ triggers: [{ type: 'c' }] });
    });

    it('reads image references with registries, ports, tags and digests', () => {
      expect(parseImage('lead-router')).toEqual({ name: 'lead-router', digest: undefined });
      expect(parseImage('registry.example.com:5000/team/lead-router:0.1.0')).toEqual({
        name: 'registry.example.com:5000/team/lead-router',
        tag: '0.1.0',
        digest: undefined,
      });
      expect(parseImage('r.example.com/lead-router@sha256:abc')).toEqual({ name: 'r.example.com/lead-router', digest: 'sha256:abc' });
    });

    it('applies the overlays: namespace, image, replicas, patches, generated Secret', () => {
      const staging = overlays.find((o) => o.name === 'staging')!.objects as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
      const production = productionSet() as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
      const base = rendered[0].objects as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
      const byName = (set: any[], kind: string, name: string) => set.find((o) => o.kind === kind && o.metadata.name === name); // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
      expect(byName(base, 'Deployment', 'checks').metadata.namespace).toBeUndefined();
      expect(byName(staging, 'Deployment', 'checks').metadata.namespace).toBe('lead-router-staging');
      expect(byName(staging, 'Deployment', 'sandbox').spec.replicas).toBe(1);
      expect(byName(staging, 'ScaledObject', 'checks').spec).toMatchObject({ minReplicaCount: 1, maxReplicaCount: 3 });
      expect(byName(production, 'ScaledObject', 'checks').spec).toMatchObject({ minReplicaCount: 3, maxReplicaCount: 12 });
      expect(byName(staging, 'ConfigMap', 'lead-router-config').data).toMatchObject({ LOG_LEVEL: 'debug', AMQP_PREFIX: 'lr' });
      // Target patches change requests only; the base's limits stay.
      const stagingChecks = byName(staging, 'Deployment', 'checks').spec.template.spec.containers[0];
      const baseChecks = byName(base, 'Deployment', 'checks').spec.template.spec.containers[0];
      expect(stagingChecks.resources).toEqual({ requests: { cpu: '50m', memory: '128Mi' }, limits: baseChecks.resources.limits });
      expect(stagingChecks.image).toBe('registry.example.com/lead-router:0.1.0');
      expect(baseChecks.image).toBe('lead-router');
      expect(byName(production, 'Secret', 'lead-router-secrets').metadata.namespace).toBe('lead-router-production');
    });
  });
});
