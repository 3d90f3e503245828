/**
 * The Prometheus Operator's kinds (monitoring.coreos.com/v1: PodMonitor,
 * ServiceMonitor, PrometheusRule) checked field by field, offline. Their CRD
 * schemas are not in kubernetes-models, so this file writes down the part of
 * them that k8s/monitoring may use (from the operator's v1 CRDs), and refuses
 * any other field, a wrong type, a missing required field or a malformed
 * duration, like test/support/k8s-strict-fields.ts does for the built-in
 * kinds. A manifest that needs another field of those CRDs adds it here first.
 */

type Schema =
  | { type: 'object'; fields: Record<string, Schema>; required?: string[] }
  | { type: 'map'; values: Schema }
  | { type: 'array'; items: Schema; minItems?: number }
  | { type: 'string'; pattern?: RegExp; enum?: readonly string[] }
  | { type: 'integer' | 'boolean' | 'intOrString' };

const str = (extra: { pattern?: RegExp; enum?: readonly string[] } = {}): Schema => ({ type: 'string', ...extra });
const obj = (fields: Record<string, Schema>, required: string[] = []): Schema => ({ type: 'object', fields, required });
const arr = (items: Schema, minItems = 0): Schema => ({ type: 'array', items, minItems });
const map = (values: Schema): Schema => ({ type: 'map', values });
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };

/** The operator's Duration: `^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$`, not empty. */
const DURATION = /^(0|(?=\d)((\d+)y)?((\d+)w)?((\d+)d)?((\d+)h)?((\d+)m)?((\d+)s)?((\d+)ms)?)$/;
const duration = str({ pattern: DURATION });
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const labelSelector = obj({
  matchLabels: map(str()),
  matchExpressions: arr(
    obj({ key: str(), operator: str({ enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] }), values: arr(str()) }, ['key', 'operator']),
  ),
});
const relabeling = obj({
  sourceLabels: arr(str({ pattern: LABEL_NAME })),
  separator: str(),
  targetLabel: str(),
  regex: str(),
  modulus: int,
  replacement: str(),
  action: str({
    enum: [
      'replace',
      'Replace',
      'keep',
      'Keep',
      'drop',
      'Drop',
      'hashmod',
      'HashMod',
      'labelmap',
      'LabelMap',
      'labeldrop',
      'LabelDrop',
      'labelkeep',
      'LabelKeep',
      'lowercase',
      'Lowercase',
      'uppercase',
      'Uppercase',
      'keepequal',
      'KeepEqual',
      'dropequal',
      'DropEqual',
    ],
  }),
});
const endpointCommon: Record<string, Schema> = {
  path: str({ pattern: /^\// }),
  scheme: str({ enum: ['http', 'https'] }),
  params: map(arr(str())),
  interval: duration,
  scrapeTimeout: duration,
  honorLabels: bool,
  honorTimestamps: bool,
  relabelings: arr(relabeling),
  metricRelabelings: arr(relabeling),
  followRedirects: bool,
  enableHttp2: bool,
};
const common = { namespaceSelector: obj({ any: bool, matchNames: arr(str()) }), sampleLimit: int, targetLimit: int, labelLimit: int };

const metadata = obj(
  { name: str({ pattern: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/ }), namespace: str(), labels: map(str()), annotations: map(str()) },
  ['name'],
);
const resource = (spec: Schema): Schema =>
  obj({ apiVersion: str(), kind: str(), metadata, spec }, ['apiVersion', 'kind', 'metadata', 'spec']);

const rule = obj(
  {
    record: str({ pattern: /^[a-zA-Z_:][a-zA-Z0-9_:]*$/ }),
    alert: str(),
    expr: { type: 'intOrString' },
    for: duration,
    keep_firing_for: duration,
    labels: map(str()),
    annotations: map(str()),
  },
  ['expr'],
);

export const MONITORING_SCHEMAS: Record<string, Schema> = {
  PodMonitor: resource(
    obj(
      {
        ...common,
        jobLabel: str(),
        podTargetLabels: arr(str()),
        selector: labelSelector,
        podMetricsEndpoints: arr(obj({ ...endpointCommon, port: str(), filterRunning: bool }), 1),
      },
      ['selector', 'podMetricsEndpoints'],
    ),
  ),
  ServiceMonitor: resource(
    obj(
      {
        ...common,
        jobLabel: str(),
        targetLabels: arr(str()),
        podTargetLabels: arr(str()),
        selector: labelSelector,
        endpoints: arr(obj({ ...endpointCommon, port: str(), targetPort: { type: 'intOrString' } }), 1),
      },
      ['selector', 'endpoints'],
    ),
  ),
  PrometheusRule: resource(
    obj(
      {
        groups: arr(
          obj({ name: str(), interval: duration, limit: int, partial_response_strategy: str(), rules: arr(rule, 1) }, ['name', 'rules']),
          1,
        ),
      },
      ['groups'],
    ),
  ),
};

export const MONITORING_API_VERSION = 'monitoring.coreos.com/v1';

/** The problems of one object of the operator's kinds (an empty list when it is well formed). */
export function monitoringFieldErrors(o: { apiVersion?: unknown; kind?: unknown }): string[] {
  if (o.apiVersion !== MONITORING_API_VERSION) return [`apiVersion ${String(o.apiVersion)} is not ${MONITORING_API_VERSION}`];
  const schema = MONITORING_SCHEMAS[String(o.kind)];
  if (!schema) return [`no schema for ${MONITORING_API_VERSION} ${String(o.kind)} (test/support/monitoring-crds.ts)`];
  const errors = check(o, schema, String(o.kind));
  // A rule is a recording rule or an alerting rule, never both; only an alert has `for` and annotations.
  for (const [g, group] of (
    ((o as { spec?: { groups?: unknown } }).spec?.groups ?? []) as Array<{ rules?: Array<Record<string, unknown>> }>
  ).entries()) {
    for (const [n, r] of (group.rules ?? []).entries()) {
      const at = `PrometheusRule.spec.groups[${g}].rules[${n}]`;
      if ('record' in r === 'alert' in r) errors.push(`${at}: exactly one of record and alert`);
      if ('record' in r && ('for' in r || 'annotations' in r)) errors.push(`${at}: a recording rule has no for or annotations`);
    }
  }
  return errors;
}

function check(value: unknown, schema: Schema, at: string): string[] {
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${at} must be an object`];
      const v = value as Record<string, unknown>;
      const errors = Object.keys(v)
        .filter((k) => !(k in schema.fields))
        .map((k) => `${at}.${k} is not a field of the CRD (test/support/monitoring-crds.ts)`);
      for (const k of schema.required ?? []) if (v[k] === undefined) errors.push(`${at}.${k} is required`);
      for (const [k, s] of Object.entries(schema.fields)) if (v[k] !== undefined) errors.push(...check(v[k], s, `${at}.${k}`));
      return errors;
    }
    case 'map': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${at} must be a map`];
      return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => check(v, schema.values, `${at}.${k}`));
    }
    case 'array': {
      if (!Array.isArray(value)) return [`${at} must be a list`];
      const errors = value.length < (schema.minItems ?? 0) ? [`${at} needs at least ${schema.minItems} item(s)`] : [];
      return [...errors, ...value.flatMap((v, n) => check(v, schema.items, `${at}[${n}]`))];
    }
    case 'string':
      if (typeof value !== 'string') return [`${at} must be string`];
      if (schema.pattern && !schema.pattern.test(value)) return [`${at} "${value}" does not match ${schema.pattern}`];
      if (schema.enum && !schema.enum.includes(value)) return [`${at} "${value}" is not one of ${schema.enum.join(', ')}`];
      return [];
    case 'integer':
      return Number.isInteger(value) ? [] : [`${at} must be integer`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at} must be boolean`];
    case 'intOrString':
      return Number.isInteger(value) || typeof value === 'string' ? [] : [`${at} must be an integer or a string`];
  }
}
