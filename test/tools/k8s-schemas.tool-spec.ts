import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { find } from '../support/k8s-checks';
import { all, clone, label, productionSet, ROOT } from '../support/k8s-rendered';
import { fieldErrors } from '../support/k8s-strict-fields';
import { K8sObject } from '../support/kustomize-lite';

/**
 * The base and each overlay of k8s/, rendered by test/support/kustomize-lite.ts,
 * validate object by object against the Kubernetes and KEDA schemas of
 * kubernetes-models (in a child node: those packages are ESM-only) and have no
 * field those models do not know (test/support/k8s-strict-fields.ts); broken
 * copies fail. The checks that need no program are in
 * test/unit/k8s-manifests.spec.ts.
 */

/** Runs the schema validator (test/support/k8s-validate.mjs) once for a batch of objects. */
function schemaErrors(objects: unknown[]): string[][] {
  const out = execFileSync(process.execPath, [join(ROOT, 'test/support/k8s-validate.mjs')], {
    cwd: ROOT,
    input: JSON.stringify(objects),
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  });
  return (JSON.parse(out.toString('utf8')) as Array<{ errors: string[] }>).map((r) => r.errors);
}

describe('k8s/ manifests', () => {
  describe('schemas (kubernetes-models 5.1.0, @kubernetes-models/keda 2.0.0)', () => {
    let schema: string[][];
    let fields: string[][];
    beforeAll(() => {
      schema = schemaErrors(all.map((a) => a.object));
      fields = fieldErrors(all.map((a) => a.object));
    });

    it.each(all.map((a, n) => [label(a.set, a.object), n] as const))('%s matches its schema and has no unknown field', (_name, n) => {
      expect({ schema: schema[n], fields: fields[n] }).toEqual({ schema: [], fields: [] });
    });
  });

  describe('the validators reject broken manifests', () => {
    const gateway = () => clone(find(productionSet(), 'Deployment', 'gateway')!) as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
    const scaled = () => clone(find(productionSet(), 'ScaledObject', 'checks')!) as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
    const broken: Array<[string, unknown, RegExp]> = [];
    {
      const d = gateway();
      d.spec.replicas = 'two';
      broken.push(['a wrong type (replicas: "two")', d, /replicas must be integer/]);
    }
    {
      const d = gateway();
      d.spec.template.spec.containers[0].readinesProbe = d.spec.template.spec.containers[0].readinessProbe;
      broken.push(['an unknown field deep in a pod (readinesProbe)', d, /readinesProbe/]);
    }
    {
      const d = gateway();
      delete d.spec.template.spec.containers[0].name;
      broken.push(['a missing required field (container name)', d, /name/]);
    }
    {
      const d = gateway();
      d.spec.template.spec.containers[0].resources.limits.memory = '512 MB';
      broken.push(['a malformed quantity', d, /quantity/]);
    }
    {
      const d = gateway();
      d.spec.template.spec.containers[0].livenessProbe.httpGet = { path: '/health/live' };
      broken.push(['a probe without a port', d, /port/]);
    }
    {
      const s = scaled();
      s.spec.triggers[0].metadata.value = 50;
      broken.push(['a KEDA trigger value as a number', s, /must be string/]);
    }
    {
      const s = scaled();
      s.spec.minReplicas = s.spec.minReplicaCount;
      broken.push(['an unknown KEDA field (minReplicas)', s, /minReplicas/]);
    }
    {
      const s = scaled();
      s.apiVersion = 'keda.sh/v1';
      broken.push(['an API version with no schema', s, /keda\.sh\/v1/]);
    }
    {
      const c = clone(find(productionSet(), 'CronJob', 'lead-router-retention')!) as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
      c.spec.startingDeadlineSeconds = '6h';
      broken.push(['a CronJob field of the wrong type (startingDeadlineSeconds: "6h")', c, /startingDeadlineSeconds must be integer/]);
    }
    {
      const c = clone(find(productionSet(), 'CronJob', 'lead-router-retention')!) as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a manifest parsed from YAML, read or broken by any path the test names.
      c.spec.jobTemplate.spec.template.spec.restartpolicy = 'Never';
      broken.push(['an unknown field in a CronJob’s pod (restartpolicy)', c, /restartpolicy/]);
    }
    let results: string[][];
    beforeAll(() => {
      const objects = broken.map(([, o]) => o as K8sObject);
      const schema = schemaErrors(objects);
      const fields = fieldErrors(objects);
      results = objects.map((_, n) => [...schema[n], ...fields[n]]);
    });
    it.each(broken.map(([what, , pattern], n) => [what, pattern, n] as const))('%s', (_what, pattern, n) => {
      expect(results[n].length).toBeGreaterThan(0);
      expect(results[n].join('\n')).toMatch(pattern);
    });
  });
});
