import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import { AppConfig, AppName, loadConfig } from '@lr/config';
import { consumerQueueNames, queuesOf, topologyFor } from '@lr/messaging';
import { EnvironmentVariables } from '../../libs/config/src/env.schema';
import type { K8sObject } from './kustomize-lite';

/**
 * What the manifest test asks of a rendered set of objects (an overlay), each
 * as a function returning its problems: an empty list means the rule holds.
 * Plain functions, so the test can also feed them broken copies and see them fail.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests parsed from YAML, read by any path the checks name; their shape is what they check, and the tests feed broken copies.
type Any = any;

export const PART_OF = 'lead-router';
/** The label of what the first deploy step applies: the migration Job and what it needs. */
export const DEPLOY_STEP_LABEL = 'lead-router/deploy-step';
/** bootstrap.ts exits this long after SHUTDOWN_DELAY_MS + SHUTDOWN_GRACE_MS if the drain has not finished. */
export const FORCE_EXIT_MARGIN_MS = 2000;
/** The one variable the image itself reads (Dockerfile: CMD runs dist/apps/$APP/src/main.js); libs/config does not. */
export const IMAGE_VARIABLES = ['APP'];

/** Every variable libs/config validates: the properties of EnvironmentVariables that carry a validator. */
export function schemaVariables(): Set<string> {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(EnvironmentVariables, '', true, false);
  return new Set(metadata.map((m) => m.propertyName));
}

export const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
export const ofKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const podSpec = (o: K8sObject): Any => (o as Any).spec?.template?.spec ?? {};
const podLabels = (o: K8sObject): Record<string, string> => (o as Any).spec?.template?.metadata?.labels ?? {};
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

export interface ResolvedEnv {
  values: Record<string, string>;
  names: string[];
  problems: string[];
}

/** The environment a container gets: envFrom ConfigMaps and Secrets of the same set, then env (which wins). */
export function containerEnv(objects: K8sObject[], container: Any): ResolvedEnv {
  const values: Record<string, string> = {};
  const problems: string[] = [];
  const dataOf = (kind: 'ConfigMap' | 'Secret', name: string): Record<string, string> | undefined => {
    const o: Any = find(objects, kind, name);
    if (!o) return undefined;
    if (kind === 'ConfigMap') return { ...(o.data ?? {}) };
    const decoded = Object.fromEntries(
      Object.entries<string>(o.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
    );
    return { ...decoded, ...(o.stringData ?? {}) };
  };
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    if (from.prefix) problems.push(`envFrom ${kind} ${ref?.name} uses a prefix`);
    const data = ref && dataOf(kind, ref.name);
    if (!data) problems.push(`envFrom names ${kind} ${ref?.name}, which is not in this set`);
    else Object.assign(values, data);
  }
  for (const e of container.env ?? []) {
    if (typeof e.value === 'string') values[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef || e.valueFrom?.configMapKeyRef) {
      const ref = e.valueFrom.secretKeyRef ?? e.valueFrom.configMapKeyRef;
      const data = dataOf(e.valueFrom.secretKeyRef ? 'Secret' : 'ConfigMap', ref.name);
      if (data?.[ref.key] === undefined) problems.push(`env ${e.name} names ${ref.name}/${ref.key}, which is not in this set`);
      else values[e.name] = data[ref.key];
    } else problems.push(`env ${e.name} has neither a value nor a Secret/ConfigMap key`);
  }
  return { values, names: Object.keys(values), problems };
}

/** Variables the container gets that libs/config does not know (a typo, or a setting nobody reads). */
export function unknownVariables(env: ResolvedEnv, known = schemaVariables()): string[] {
  return env.names
    .filter((n) => !known.has(n) && !IMAGE_VARIABLES.includes(n))
    .map((n) => `${n} is not a variable of libs/config/src/env.schema.ts`);
}

/** The app's configuration as it would load inside the container (the real loadConfig). */
export function configIn(objects: K8sObject[], container: Any, app: AppName): { config?: AppConfig; problems: string[] } {
  const env = containerEnv(objects, container);
  try {
    return { config: loadConfig(app, env.values), problems: env.problems };
  } catch (e) {
    return { problems: [...env.problems, `loadConfig('${app}') refuses the container's environment: ${(e as Error).message}`] };
  }
}

function portOf(container: Any, port: string | number | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return (container.ports ?? []).find((p: Any) => p.name === port)?.containerPort;
}

/** Kubernetes quantities as numbers (cores, bytes); undefined for a form this test does not read. */
export function quantity(value: string | number | undefined): number | undefined {
  if (typeof value === 'number') return value;
  const m = /^(\d+(?:\.\d+)?)(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/.exec(value ?? '');
  if (!m) return undefined;
  const unit: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    Ki: 2 ** 10,
    M: 1e6,
    Mi: 2 ** 20,
    G: 1e9,
    Gi: 2 ** 30,
    T: 1e12,
    Ti: 2 ** 40,
  };
  return Number(m[1]) * unit[m[2] ?? ''];
}

function resourceProblems(container: Any): string[] {
  const problems: string[] = [];
  for (const r of ['cpu', 'memory']) {
    const req = quantity(container.resources?.requests?.[r]);
    const lim = quantity(container.resources?.limits?.[r]);
    if (req === undefined) problems.push(`${container.name}: no readable ${r} request`);
    if (lim === undefined) problems.push(`${container.name}: no readable ${r} limit`);
    if (req !== undefined && lim !== undefined && req > lim) problems.push(`${container.name}: ${r} request above its limit`);
  }
  return problems;
}

function securityProblems(pod: Any, container: Any): string[] {
  const problems: string[] = [];
  const sc = container.securityContext ?? {};
  const user = sc.runAsUser ?? pod.securityContext?.runAsUser;
  if ((sc.runAsNonRoot ?? pod.securityContext?.runAsNonRoot) !== true) problems.push(`${container.name}: runAsNonRoot is not true`);
  // The image runs as its user `node`, uid 1000 (Dockerfile); a numeric uid lets the kubelet check it is not root.
  if (user !== 1000) problems.push(`${container.name}: runAsUser is ${user}, not 1000 (node)`);
  if (sc.readOnlyRootFilesystem !== true) problems.push(`${container.name}: root filesystem is writable`);
  if (sc.allowPrivilegeEscalation !== false) problems.push(`${container.name}: allowPrivilegeEscalation is not false`);
  if (!(sc.capabilities?.drop ?? []).includes('ALL')) problems.push(`${container.name}: capabilities not dropped`);
  if ((sc.seccompProfile ?? pod.securityContext?.seccompProfile)?.type !== 'RuntimeDefault')
    problems.push(`${container.name}: no RuntimeDefault seccomp profile`);
  return problems;
}

/** Seconds a preStop hook takes, when it is a plain pause. */
function preStopSeconds(container: Any): number | undefined {
  const hook = container.lifecycle?.preStop;
  if (!hook) return 0;
  if (typeof hook.sleep?.seconds === 'number') return hook.sleep.seconds;
  const cmd = hook.exec?.command;
  if (Array.isArray(cmd) && cmd.length === 2 && cmd[0] === 'sleep' && /^\d+$/.test(cmd[1])) return Number(cmd[1]);
  return undefined;
}

/** The single container of a Deployment named after its app, and the app it runs (APP). */
export function appContainer(deployment: K8sObject): { container?: Any; app?: string } {
  const containers = podSpec(deployment).containers ?? [];
  if (containers.length !== 1) return {};
  const app = (containers[0].env ?? []).find((e: Any) => e.name === 'APP')?.value;
  return { container: containers[0], app };
}

/** Everything asked of one app's Deployment. */
export function deploymentProblems(objects: K8sObject[], app: AppName): string[] {
  const d = find(objects, 'Deployment', app);
  if (!d) return [`no Deployment ${app}`];
  const problems: string[] = [];
  const { container, app: runs } = appContainer(d);
  if (!container) return [`Deployment ${app}: expected exactly one container`];
  if (runs !== app) problems.push(`Deployment ${app} runs APP=${runs}`);
  // The image's CMD starts dist/apps/$APP/src/main.js; a command here would bypass it.
  if (container.command || container.args) problems.push(`Deployment ${app}: overrides the image's command`);
  if (!matches((d as Any).spec?.selector?.matchLabels, podLabels(d)))
    problems.push(`Deployment ${app}: selector does not match its pod labels`);

  const env = containerEnv(objects, container);
  problems.push(...env.problems, ...unknownVariables(env));
  const { config, problems: configProblems } = configIn(objects, container, app);
  problems.push(...configProblems);

  const probes: Array<[string, string]> = [
    ['livenessProbe', '/health/live'],
    ['readinessProbe', '/health/ready'],
  ];
  for (const [probe, path] of probes) {
    const get = container[probe]?.httpGet;
    if (!get) problems.push(`${app}: no ${probe}`);
    else {
      if (get.path !== path) problems.push(`${app}: ${probe} asks ${get.path}, not ${path}`);
      const port = portOf(container, get.port);
      if (config && port !== config.managementPort)
        problems.push(`${app}: ${probe} on port ${port}, but the app answers probes on ${config.managementPort}`);
    }
  }
  if (container.startupProbe?.httpGet && portOf(container, container.startupProbe.httpGet.port) !== config?.managementPort) {
    problems.push(`${app}: startupProbe not on the app's management port`);
  }
  problems.push(...resourceProblems(container), ...securityProblems(podSpec(d), container));

  const pause = preStopSeconds(container);
  const grace = podSpec(d).terminationGracePeriodSeconds ?? 30;
  if (pause === undefined) problems.push(`${app}: a preStop hook whose length is unknown`);
  else if (config && grace * 1000 < pause * 1000 + config.shutdownDelayMs + config.shutdownGraceMs + FORCE_EXIT_MARGIN_MS) {
    const delay = config.shutdownDelayMs > 0 ? ` + SHUTDOWN_DELAY_MS ${config.shutdownDelayMs} ms` : '';
    problems.push(
      `${app}: terminationGracePeriodSeconds ${grace} < preStop ${pause} s${delay} + SHUTDOWN_GRACE_MS ${config.shutdownGraceMs} ms + ${FORCE_EXIT_MARGIN_MS} ms`,
    );
  }

  const budgets = ofKind(objects, 'PodDisruptionBudget').filter((p) => matches((p as Any).spec?.selector?.matchLabels, podLabels(d)));
  if (budgets.length !== 1) problems.push(`${app}: ${budgets.length} PodDisruptionBudgets select its pods, expected 1`);
  const services = ofKind(objects, 'Service').filter((s) => matches((s as Any).spec?.selector, podLabels(d)));
  if (!services.some((s) => ((s as Any).spec?.ports ?? []).some((p: Any) => portOf(container, p.targetPort) === config?.httpPort))) {
    problems.push(`${app}: no Service reaches its port ${config?.httpPort}`);
  }
  return problems;
}

/** Every Service selects pods of a Deployment of the set and targets a port they have. */
export function serviceProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const s of ofKind(objects, 'Service') as Any[]) {
    const d = ofKind(objects, 'Deployment').find((x) => matches(s.spec?.selector, podLabels(x)));
    if (!d) {
      problems.push(`Service ${s.metadata.name} selects no Deployment`);
      continue;
    }
    const { container } = appContainer(d);
    for (const p of s.spec.ports ?? []) {
      const port = portOf(container, p.targetPort ?? p.port);
      if (port === undefined) problems.push(`Service ${s.metadata.name}: targetPort ${p.targetPort} is no port of ${d.metadata.name}`);
      const scrape = s.metadata.annotations?.['prometheus.io/port'];
      if (scrape !== undefined && Number(scrape) !== port)
        problems.push(`Service ${s.metadata.name}: scrapes port ${scrape}, the pods listen on ${port}`);
    }
  }
  return problems;
}

/** The HPA scales the gateway on CPU, and the gateway asks for CPU (utilization is measured against the request). */
export function hpaProblems(objects: K8sObject[]): string[] {
  const hpas = ofKind(objects, 'HorizontalPodAutoscaler') as Any[];
  if (hpas.length !== 1) return [`${hpas.length} HorizontalPodAutoscalers, expected 1 (the gateway's)`];
  const [h] = hpas;
  const problems: string[] = [];
  const ref = h.spec.scaleTargetRef;
  if (ref.kind !== 'Deployment' || ref.apiVersion !== 'apps/v1' || ref.name !== 'gateway')
    problems.push(`HPA ${h.metadata.name} targets ${ref.kind} ${ref.name}, not Deployment gateway`);
  const d = find(objects, 'Deployment', ref.name);
  if (!d) problems.push(`HPA ${h.metadata.name} targets ${ref.name}, which is not in this set`);
  else if (quantity(appContainer(d).container?.resources?.requests?.cpu) === undefined)
    problems.push(`HPA: ${ref.name} has no CPU request`);
  const cpu = (h.spec.metrics ?? []).find(
    (m: Any) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource?.target?.type === 'Utilization',
  );
  if (!cpu) problems.push(`HPA ${h.metadata.name} does not scale on CPU utilization`);
  if (!(h.spec.minReplicas >= 1 && h.spec.minReplicas <= h.spec.maxReplicas))
    problems.push(`HPA ${h.metadata.name}: replicas ${h.spec.minReplicas}..${h.spec.maxReplicas}`);
  return problems;
}

/**
 * One ScaledObject per consumer of the messaging topology, on that consumer's
 * own queue as the code names it with the AMQP_PREFIX its pods get, read from
 * the broker the pods use.
 */
export function scaledObjectProblems(objects: K8sObject[], consumers: readonly string[]): string[] {
  const problems: string[] = [];
  const scaled = ofKind(objects, 'ScaledObject') as Any[];
  const targets = scaled.map((s) => s.spec?.scaleTargetRef?.name).sort();
  if (JSON.stringify(targets) !== JSON.stringify([...consumers].sort())) {
    problems.push(`ScaledObjects target [${targets.join(', ')}], the topology's consumers are [${[...consumers].sort().join(', ')}]`);
  }
  for (const s of scaled) {
    const name = s.metadata.name;
    const ref = s.spec.scaleTargetRef;
    if ((ref.kind ?? 'Deployment') !== 'Deployment' || (ref.apiVersion ?? 'apps/v1') !== 'apps/v1')
      problems.push(`ScaledObject ${name} targets a ${ref.kind}`);
    const d = find(objects, 'Deployment', ref.name);
    if (!d) {
      problems.push(`ScaledObject ${name} targets Deployment ${ref.name}, which is not in this set`);
      continue;
    }
    const { container, app } = appContainer(d);
    const { config, problems: configProblems } = configIn(objects, container, app as AppName);
    problems.push(...configProblems);
    if (!(s.spec.minReplicaCount >= 1 && s.spec.minReplicaCount <= s.spec.maxReplicaCount)) {
      problems.push(`ScaledObject ${name}: replicas ${s.spec.minReplicaCount}..${s.spec.maxReplicaCount} (at least 1: no scale to zero)`);
    }
    const triggers = s.spec.triggers ?? [];
    if (triggers.length !== 1) problems.push(`ScaledObject ${name}: ${triggers.length} triggers, expected 1`);
    for (const t of triggers) {
      const m = t.metadata ?? {};
      if (t.type !== 'rabbitmq') problems.push(`ScaledObject ${name}: trigger type ${t.type}`);
      if (m.mode !== 'QueueLength') problems.push(`ScaledObject ${name}: mode ${m.mode}, not QueueLength`);
      if (!/^[1-9]\d*$/.test(m.value ?? '')) problems.push(`ScaledObject ${name}: value ${m.value} is not a positive whole number`);
      if (m.host !== undefined || m.vhostName !== undefined)
        problems.push(`ScaledObject ${name}: host and vhost come from the Secret, not the trigger`);
      if (m.protocol !== 'amqp') problems.push(`ScaledObject ${name}: protocol ${m.protocol}; the Secret holds an amqp:// URL`);
      if (config) {
        const topology = topologyFor(config);
        const own = queuesOf(topology, app as string).queue;
        if (!consumerQueueNames(topology).includes(m.queueName))
          problems.push(`ScaledObject ${name}: queue ${m.queueName} is not a consumer queue of the topology`);
        if (m.queueName !== own) problems.push(`ScaledObject ${name}: queue ${m.queueName}, but ${app} consumes ${own}`);
      }
      problems.push(...brokerProblems(objects, name, t, containerEnv(objects, container).values.AMQP_URL));
    }
  }
  return problems;
}

/** KEDA reads the same broker and vhost as the pods: the TriggerAuthentication's host is the pods' AMQP_URL. */
function brokerProblems(objects: K8sObject[], name: string, trigger: Any, podAmqpUrl: string | undefined): string[] {
  const auth: Any = find(objects, 'TriggerAuthentication', trigger.authenticationRef?.name ?? '');
  if (!auth) return [`ScaledObject ${name}: no TriggerAuthentication ${trigger.authenticationRef?.name}`];
  const host = (auth.spec?.secretTargetRef ?? []).find((r: Any) => r.parameter === 'host');
  if (!host) return [`TriggerAuthentication ${auth.metadata.name} gives no host`];
  const secret: Any = find(objects, 'Secret', host.name);
  const value = secret?.data?.[host.key] !== undefined ? Buffer.from(secret.data[host.key], 'base64').toString('utf8') : undefined;
  if (value === undefined) return [`TriggerAuthentication ${auth.metadata.name}: Secret ${host.name} has no key ${host.key}`];
  if (value !== podAmqpUrl) return [`ScaledObject ${name}: KEDA reads ${host.name}/${host.key}, not the AMQP_URL the pods use`];
  return [];
}

/** A Deployment scaled by an autoscaler leaves replicas to it (an apply would reset them); one autoscaler per Deployment. */
export function replicaOwnershipProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const scaledBy = new Map<string, string[]>();
  for (const h of ofKind(objects, 'HorizontalPodAutoscaler') as Any[])
    scaledBy.set(h.spec.scaleTargetRef.name, [...(scaledBy.get(h.spec.scaleTargetRef.name) ?? []), `HPA ${h.metadata.name}`]);
  for (const s of ofKind(objects, 'ScaledObject') as Any[])
    scaledBy.set(s.spec.scaleTargetRef.name, [...(scaledBy.get(s.spec.scaleTargetRef.name) ?? []), `ScaledObject ${s.metadata.name}`]);
  for (const d of ofKind(objects, 'Deployment') as Any[]) {
    const by = scaledBy.get(d.metadata.name) ?? [];
    if (by.length > 1) problems.push(`Deployment ${d.metadata.name} is scaled by ${by.join(' and ')}`);
    if (by.length > 0 && d.spec.replicas !== undefined)
      problems.push(`Deployment ${d.metadata.name} sets replicas, but ${by[0]} owns them`);
    if (by.length === 0 && d.spec.replicas === undefined)
      problems.push(`Deployment ${d.metadata.name} has neither replicas nor an autoscaler`);
  }
  return problems;
}

/**
 * What a pod of the ops CLI (the migration Job, the retention CronJob) needs:
 * one container, the apps' image and settings (loadConfig('ops') accepts
 * them), DATABASE_URL, resources, the apps' security settings, no service
 * account token, and a restart policy a Job allows.
 */
function opsPodProblems(objects: K8sObject[], what: string, pod: Any): { container?: Any; problems: string[] } {
  const containers = pod?.containers ?? [];
  if (containers.length !== 1) return { problems: [`${what}: expected one container`] };
  const [c] = containers;
  const problems: string[] = [];
  if (!['Never', 'OnFailure'].includes(pod.restartPolicy)) problems.push(`${what}: restartPolicy ${pod.restartPolicy}`);
  const env = containerEnv(objects, c);
  problems.push(...env.problems, ...unknownVariables(env), ...configIn(objects, c, 'ops').problems);
  if (env.values.DATABASE_URL === undefined) problems.push(`${what} gets no DATABASE_URL`);
  if (env.values.APP !== 'ops') problems.push(`${what} runs APP=${env.values.APP}, not ops`);
  problems.push(...resourceProblems(c), ...securityProblems(pod, c));
  if (pod.automountServiceAccountToken !== false) problems.push(`${what} mounts a service account token`);
  const appImages = new Set(ofKind(objects, 'Deployment').map((d) => appContainer(d).container?.image));
  if (appImages.size !== 1 || !appImages.has(c.image)) problems.push(`${what} runs ${c.image}, the apps run ${[...appImages].join(', ')}`);
  return { container: c, problems };
}

/** The migration Job runs `npm run migrate` (package.json) with the apps' image and settings, before them. */
export function migrationJobProblems(objects: K8sObject[], migrateScript: string): string[] {
  const jobs = ofKind(objects, 'Job') as Any[];
  if (jobs.length !== 1) return [`${jobs.length} Jobs, expected the migration Job`];
  const [job] = jobs;
  const { container: c, problems } = opsPodProblems(objects, `Job ${job.metadata.name}`, job.spec.template.spec);
  if (!c) return problems;
  if ((c.command ?? []).join(' ') !== migrateScript)
    problems.unshift(`Job ${job.metadata.name} runs "${(c.command ?? []).join(' ')}", npm run migrate is "${migrateScript}"`);

  // The first deploy step applies only what carries the label: the Job and everything it needs.
  const labelled = (o: K8sObject | undefined) => o?.metadata.labels?.[DEPLOY_STEP_LABEL] === 'migrate';
  if (!labelled(job)) problems.push(`Job ${job.metadata.name} lacks ${DEPLOY_STEP_LABEL}=migrate`);
  for (const from of c.envFrom ?? []) {
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    const name = (from.configMapRef ?? from.secretRef).name;
    if (!labelled(find(objects, kind, name))) problems.push(`${kind} ${name} (needed by the migration) lacks ${DEPLOY_STEP_LABEL}=migrate`);
  }
  for (const ns of ofKind(objects, 'Namespace'))
    if (!labelled(ns)) problems.push(`Namespace ${ns.metadata.name} lacks ${DEPLOY_STEP_LABEL}=migrate`);
  for (const d of ofKind(objects, 'Deployment'))
    if (labelled(d)) problems.push(`Deployment ${d.metadata.name} would start in the migration step`);
  return problems;
}

/** A daily schedule: a fixed minute and hour, every day (`17 3 * * *`). */
const DAILY = /^([0-5]?\d) (1?\d|2[0-3]) \* \* \*$/;

/**
 * The retention CronJob runs `npm run ops -- retention run` (`opsScript` is the
 * ops script of package.json; `isOpsCommand` says whether the CLI has the
 * command): daily in UTC (retention days are UTC days), one run at a time, a
 * run bounded in time (with Forbid, a hung run would hold back every later
 * one), with the migration Job's image and settings, applied with the apps
 * (it needs the migrated schema), not in the migration step.
 */
export function retentionCronJobProblems(objects: K8sObject[], opsScript: string, isOpsCommand: (args: string[]) => boolean): string[] {
  const cronJobs = ofKind(objects, 'CronJob') as Any[];
  if (cronJobs.length !== 1) return [`${cronJobs.length} CronJobs, expected the retention CronJob`];
  const [cron] = cronJobs;
  const what = `CronJob ${cron.metadata.name}`;
  const problems: string[] = [];
  if (!DAILY.test(cron.spec.schedule ?? '')) problems.push(`${what}: schedule "${cron.spec.schedule}" is not once a day`);
  if (!['Etc/UTC', 'UTC'].includes(cron.spec.timeZone)) problems.push(`${what}: timeZone ${cron.spec.timeZone}, not UTC`);
  if (cron.spec.concurrencyPolicy !== 'Forbid') problems.push(`${what}: concurrencyPolicy ${cron.spec.concurrencyPolicy}, not Forbid`);
  const job = cron.spec.jobTemplate?.spec ?? {};
  if (!(job.activeDeadlineSeconds > 0 && job.activeDeadlineSeconds < 86_400))
    problems.push(`${what}: activeDeadlineSeconds ${job.activeDeadlineSeconds}, not within a day`);
  const { container: c, problems: podProblems } = opsPodProblems(objects, what, job.template?.spec);
  problems.push(...podProblems);
  if (c) {
    const command = [...(c.command ?? []), ...(c.args ?? [])];
    const script = opsScript.split(' ');
    const args = command.slice(script.length);
    if (command.slice(0, script.length).join(' ') !== opsScript || args.slice(0, 2).join(' ') !== 'retention run' || !isOpsCommand(args)) {
      problems.push(`${what} runs "${command.join(' ')}", not "${opsScript} retention run"`);
    }
    if (args.includes('--dry-run')) problems.push(`${what} only ever dry-runs`);
  }
  const labelled = (o: Any) => o?.metadata?.labels?.[DEPLOY_STEP_LABEL] === 'migrate';
  if (labelled(cron) || labelled(cron.spec.jobTemplate))
    problems.push(`${what} would be applied in the migration step, before the schema it needs`);
  return problems;
}

/** The connection settings come from the Secret, so no app falls back to the 127.0.0.1 defaults. */
export function secretProblems(objects: K8sObject[], keys = ['DATABASE_URL', 'REDIS_URL', 'AMQP_URL']): string[] {
  const problems: string[] = [];
  const secrets = ofKind(objects, 'Secret') as Any[];
  if (secrets.length !== 1) return [`${secrets.length} Secrets, expected 1`];
  for (const key of keys) if (secrets[0].data?.[key] === undefined) problems.push(`Secret ${secrets[0].metadata.name} has no ${key}`);
  for (const cm of ofKind(objects, 'ConfigMap') as Any[]) {
    for (const key of keys)
      if (cm.data?.[key] !== undefined) problems.push(`ConfigMap ${cm.metadata.name} holds ${key}, which may carry a password`);
  }
  return problems;
}

/** One Namespace per overlay, and every namespaced object in it. */
export function namespaceProblems(objects: K8sObject[]): string[] {
  const namespaces = ofKind(objects, 'Namespace');
  if (namespaces.length !== 1) return [`${namespaces.length} Namespaces, expected 1`];
  const ns = namespaces[0].metadata.name;
  return objects
    .filter((o) => o.kind !== 'Namespace' && o.metadata.namespace !== ns)
    .map((o) => `${o.kind} ${o.metadata.name} is in namespace ${o.metadata.namespace}, not ${ns}`);
}

/** All containers run one image, pinned to a release (a tag other than latest, or a digest). */
export function imageProblems(objects: K8sObject[], parse: (ref: string) => { name: string; tag?: string; digest?: string }): string[] {
  const images = new Set<string>();
  for (const o of objects as Any[])
    for (const c of (o.spec?.jobTemplate?.spec ?? o.spec)?.template?.spec?.containers ?? []) images.add(c.image);
  const problems: string[] = [];
  if (images.size !== 1) problems.push(`containers run ${images.size} images (${[...images].join(', ')}), expected one`);
  for (const image of images) {
    const { tag, digest } = parse(image);
    if (!digest && (!tag || tag === 'latest')) problems.push(`image ${image} is not pinned to a release`);
  }
  return problems;
}

/** The `job` label the alert rules select (deploy/prometheus/rules: `up{job="lead-router"}`). */
export const SCRAPE_JOB = 'lead-router';

function selects(selector: Any, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const exprs: Any[] = selector.matchExpressions ?? [];
  if (Object.keys(selector.matchLabels ?? {}).length === 0 && exprs.length === 0) return false; // selects everything: never meant
  if (!Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v)) return false;
  return exprs.every((e) => {
    const has = e.key in labels;
    if (e.operator === 'In') return has && (e.values ?? []).includes(labels[e.key]);
    if (e.operator === 'NotIn') return !has || !(e.values ?? []).includes(labels[e.key]);
    return e.operator === 'Exists' ? has : !has;
  });
}

/**
 * The monitoring set of an overlay (k8s/overlays/<env>/monitoring) against the
 * overlay's own objects: in the overlay's namespace, a PrometheusRule, and for
 * every app's Deployment exactly one PodMonitor that selects its pods, scrapes
 * /metrics on a port name its container has, the port the app listens on, and
 * names the job the alert rules select; no PodMonitor that selects no app.
 */
export function podMonitorProblems(apps: K8sObject[], monitoring: K8sObject[]): string[] {
  const problems: string[] = [];
  const namespace = ofKind(apps, 'Namespace')[0]?.metadata.name;
  for (const o of monitoring)
    if (o.metadata.namespace !== namespace)
      problems.push(`${o.kind} ${o.metadata.name} is in namespace ${o.metadata.namespace}, the apps in ${namespace}`);
  if (ofKind(monitoring, 'PrometheusRule').length !== 1)
    problems.push(`${ofKind(monitoring, 'PrometheusRule').length} PrometheusRules, expected 1`);
  const monitors = ofKind(monitoring, 'PodMonitor') as Any[];
  const deployments = ofKind(apps, 'Deployment');
  for (const m of monitors) {
    if (!deployments.some((d) => selects(m.spec?.selector, podLabels(d))))
      problems.push(`PodMonitor ${m.metadata.name} selects no app's pods`);
  }
  for (const d of deployments) {
    const labels = podLabels(d);
    const { container, app } = appContainer(d);
    const chosen = monitors.filter((m) => selects(m.spec?.selector, labels));
    if (chosen.length !== 1) {
      problems.push(`${d.metadata.name}: ${chosen.length} PodMonitors select its pods, expected 1`);
      continue;
    }
    const [m] = chosen;
    const { config, problems: configProblems } = configIn(apps, container, app as AppName);
    problems.push(...configProblems);
    const endpoints: Any[] = m.spec.podMetricsEndpoints ?? [];
    const scraped = endpoints.filter((e) => typeof e.port === 'string' && (container.ports ?? []).some((p: Any) => p.name === e.port));
    if (scraped.length !== 1)
      problems.push(
        `${d.metadata.name}: PodMonitor ${m.metadata.name} names no port of its container (${endpoints.map((e) => e.port).join(', ')})`,
      );
    for (const e of scraped) {
      if ((e.path ?? '/metrics') !== '/metrics')
        problems.push(`${d.metadata.name}: PodMonitor ${m.metadata.name} scrapes ${e.path}, not /metrics`);
      const port = portOf(container, e.port);
      if (config && port !== config.managementPort)
        problems.push(
          `${d.metadata.name}: PodMonitor ${m.metadata.name} scrapes port ${port}, the app serves /metrics on ${config.managementPort}`,
        );
    }
    const job = m.spec.jobLabel ? labels[m.spec.jobLabel] : undefined;
    if (job !== SCRAPE_JOB)
      problems.push(
        `${d.metadata.name}: PodMonitor ${m.metadata.name} gives job ${job ?? `${namespace}/${m.metadata.name}`}, the alert rules select job ${SCRAPE_JOB}`,
      );
  }
  return problems;
}
