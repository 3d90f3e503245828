import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { K8sObject, renderKustomization } from './kustomize-lite';

/**
 * k8s/ rendered offline by test/support/kustomize-lite.ts, for the checks of
 * test/unit/k8s-manifests.spec.ts and the schema validation of
 * test/tools/k8s-schemas.tool-spec.ts. The overlays' secretGenerator reads
 * secrets.env, which is never committed: they are rendered with
 * secrets.env.example in its place.
 */

export const ROOT = resolve(__dirname, '../..');
export const K8S = join(ROOT, 'k8s');
export const rel = (p: string) => relative(ROOT, p);
const withExampleSecrets = { readEnvFile: (path: string) => readFileSync(`${path}.example`, 'utf8') };

export const overlayNames = readdirSync(join(K8S, 'overlays'))
  .filter((n) => existsSync(join(K8S, 'overlays', n, 'kustomization.yaml')))
  .sort();

export interface Rendered {
  name: string;
  dir: string;
  objects: K8sObject[];
}
export const rendered: Rendered[] = [
  { name: 'base', dir: join(K8S, 'base'), objects: renderKustomization(join(K8S, 'base'), withExampleSecrets) },
  ...overlayNames.map((name) => {
    const dir = join(K8S, 'overlays', name);
    return { name, dir, objects: renderKustomization(dir, withExampleSecrets) };
  }),
];
export const overlays = rendered.filter((r) => r.name !== 'base');
/** The Prometheus Operator's objects: k8s/monitoring, and each overlay's monitoring kustomization. */
export const monitoringSets: Rendered[] = [
  { name: 'monitoring', dir: join(K8S, 'monitoring'), objects: renderKustomization(join(K8S, 'monitoring')) },
  ...overlayNames.map((name) => {
    const dir = join(K8S, 'overlays', name, 'monitoring');
    return { name: `${name}/monitoring`, dir, objects: renderKustomization(dir) };
  }),
];
export const monitoringOf = (overlay: string) => monitoringSets.find((m) => m.name === `${overlay}/monitoring`)!.objects;
export const label = (set: string, o: K8sObject) => `${set}: ${o.apiVersion} ${o.kind} ${o.metadata.name}`;
/** Every object of the base and the overlays, with the set it belongs to. */
export const all = rendered.flatMap((r) => r.objects.map((o) => ({ set: r.name, object: o })));

export const clone = <T>(v: T): T => structuredClone(v);
/** A fresh copy of the production overlay's objects, for a test to break. */
export const productionSet = () => clone(overlays.find((o) => o.name === 'production')!.objects);
