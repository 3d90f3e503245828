import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * The part of kustomize that k8s/ uses, for rendering the overlays in a test
 * without a kustomize binary or a cluster. It implements, with kustomize's
 * semantics:
 *   resources (files and directories), namespace, images, replicas,
 *   patches (strategic merge, inline or from a file, with an optional target by kind and name),
 *   configMapGenerator / secretGenerator (envs, literals, options.labels) with
 *   generatorOptions.disableNameSuffixHash: true.
 * Anything else (another kustomization field, a JSON 6902 patch, a target by
 * label, a list merge it does not know, name hashes) is refused with an error,
 * so a rendering is either exact or fails: a kustomization that needs more must
 * extend this file first.
 */

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface RenderOptions {
  /** Reads an env file of a generator (kustomize reads the file itself); a test may point it at an example file. */
  readEnvFile?: (absPath: string) => string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const SUPPORTED_FIELDS = new Set([
  'apiVersion',
  'kind',
  'namespace',
  'resources',
  'images',
  'replicas',
  'patches',
  'configMapGenerator',
  'secretGenerator',
  'generatorOptions',
]);

/** Kinds that live outside namespaces (the ones a lead-router manifest could name). */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
  'RuntimeClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ClusterTriggerAuthentication',
]);

/** Kinds whose spec.replicas the `replicas` field sets. */
const REPLICATED = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController']);

/**
 * Lists of built-in kinds that a strategic merge patch merges by a key instead
 * of replacing (from the Kubernetes API's patch strategies). Only those used
 * in pod specs are listed; a patch with any other list on a built-in kind is
 * refused rather than guessed.
 */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
};

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Built-in API groups: none ("v1"), dot-less ("apps/v1") or *.k8s.io; a custom resource's is any other ("keda.sh/v1alpha1"). */
function isBuiltIn(apiVersion: string): boolean {
  if (!apiVersion.includes('/')) return true;
  const group = apiVersion.split('/')[0];
  return !group.includes('.') || group.endsWith('.k8s.io');
}

/** Every document of a YAML file; a syntax error throws, naming the file. */
export function readYamlDocuments(file: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  const out: unknown[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

function asObject(value: unknown, where: string): K8sObject {
  if (
    !isObject(value) ||
    typeof value.apiVersion !== 'string' ||
    typeof value.kind !== 'string' ||
    !isObject(value.metadata) ||
    typeof value.metadata.name !== 'string'
  ) {
    throw new Error(`${where}: not a Kubernetes object with apiVersion, kind and metadata.name`);
  }
  return value as unknown as K8sObject;
}

const idOf = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** Renders the kustomization in `dir` (a directory holding kustomization.yaml), like `kustomize build dir`. */
export function renderKustomization(dir: string, opts: RenderOptions = {}): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  const [k] = readYamlDocuments(file);
  if (!isObject(k)) throw new Error(`${file}: not a mapping`);
  for (const field of Object.keys(k)) {
    if (!SUPPORTED_FIELDS.has(field)) throw new Error(`${file}: field "${field}" is not implemented by test/support/kustomize-lite.ts`);
  }
  if (k.kind !== 'Kustomization') throw new Error(`${file}: kind must be Kustomization`);

  const objects: K8sObject[] = [];
  const add = (o: K8sObject, where: string) => {
    if (objects.some((x) => idOf(x) === idOf(o))) throw new Error(`${where}: ${idOf(o)} is defined twice`);
    objects.push(o);
  };

  for (const entry of list(k.resources, `${file}: resources`)) {
    if (typeof entry !== 'string' || /^[a-z]+:\/\//.test(entry))
      throw new Error(`${file}: resource ${JSON.stringify(entry)} must be a local path`);
    const path = resolve(dir, entry);
    if (statSync(path).isDirectory()) {
      for (const o of renderKustomization(path, opts)) add(o, path);
    } else {
      readYamlDocuments(path).forEach((doc, n) => add(asObject(doc, `${path} document ${n + 1}`), path));
    }
  }

  const generatorOptions = isObject(k.generatorOptions) ? k.generatorOptions : {};
  for (const key of Object.keys(generatorOptions)) {
    if (!['disableNameSuffixHash', 'labels', 'annotations'].includes(key))
      throw new Error(`${file}: generatorOptions.${key} is not implemented`);
  }
  for (const [field, kind] of [
    ['configMapGenerator', 'ConfigMap'],
    ['secretGenerator', 'Secret'],
  ] as const) {
    for (const gen of list(k[field], `${file}: ${field}`)) {
      add(generate(kind, gen, generatorOptions, dir, file, opts), file);
    }
  }

  for (const entry of list(k.patches, `${file}: patches`)) applyPatch(objects, entry, dir, file);

  if (k.namespace !== undefined) {
    if (typeof k.namespace !== 'string') throw new Error(`${file}: namespace must be a string`);
    for (const o of objects) {
      // kustomize renames a Namespace object to the namespace it sets (kubernetes-sigs/kustomize#4979).
      if (o.kind === 'Namespace') o.metadata.name = k.namespace;
      else if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
    }
  }

  for (const r of list(k.replicas, `${file}: replicas`)) {
    if (!isObject(r) || typeof r.name !== 'string' || typeof r.count !== 'number')
      throw new Error(`${file}: replicas entries need name and count`);
    const targets = objects.filter((o) => REPLICATED.has(o.kind) && o.metadata.name === r.name);
    if (targets.length === 0) throw new Error(`${file}: replicas names ${r.name}, which is no Deployment here`);
    for (const o of targets) (o.spec as JsonObject).replicas = r.count;
  }

  for (const img of list(k.images, `${file}: images`)) {
    if (!isObject(img) || typeof img.name !== 'string') throw new Error(`${file}: images entries need a name`);
    for (const key of Object.keys(img)) {
      if (!['name', 'newName', 'newTag', 'digest'].includes(key)) throw new Error(`${file}: images.${key} is not implemented`);
    }
    for (const o of objects) setImages(o as unknown as Json, img as { name: string; newName?: string; newTag?: string; digest?: string });
  }
  return objects;
}

function list(value: Json | undefined, where: string): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${where} must be a list`);
  return value;
}

/** kustomize's env file format: KEY=value lines; blank lines and # comments skipped; the value is taken as written. */
export function parseEnvFile(text: string, where: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  text.split(/\r?\n/).forEach((raw, n) => {
    const line = raw.replace(/^\s+/, '');
    if (line === '' || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    // kustomize would read a bare KEY from its own environment: never wanted here.
    if (eq <= 0) throw new Error(`${where}:${n + 1}: expected KEY=value`);
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new Error(`${where}:${n + 1}: "${key}" is not a variable name`);
    if (/^["']/.test(value)) throw new Error(`${where}:${n + 1}: quoted values are not supported (kustomize keeps the quotes)`);
    out.push([key, value]);
  });
  return out;
}

function generate(kind: 'ConfigMap' | 'Secret', gen: Json, options: JsonObject, dir: string, file: string, opts: RenderOptions): K8sObject {
  if (!isObject(gen) || typeof gen.name !== 'string') throw new Error(`${file}: a generator needs a name`);
  for (const key of Object.keys(gen)) {
    if (!['name', 'envs', 'literals', 'options', 'type'].includes(key))
      throw new Error(`${file}: generator field "${key}" is not implemented`);
  }
  const own = isObject(gen.options) ? gen.options : {};
  for (const key of Object.keys(own)) {
    if (!['labels', 'annotations', 'disableNameSuffixHash'].includes(key))
      throw new Error(`${file}: generator options.${key} is not implemented`);
  }
  if ((own.disableNameSuffixHash ?? options.disableNameSuffixHash) !== true) {
    throw new Error(
      `${file}: generator ${gen.name} would get a name hash suffix (and every reference renamed); set disableNameSuffixHash: true`,
    );
  }
  const pairs: Array<[string, string]> = [];
  for (const env of list(gen.envs, `${file}: envs`)) {
    const path = resolve(dir, String(env));
    const text = opts.readEnvFile ? opts.readEnvFile(path) : readFileSync(path, 'utf8');
    pairs.push(...parseEnvFile(text, path));
  }
  for (const literal of list(gen.literals, `${file}: literals`)) {
    pairs.push(...parseEnvFile(String(literal), `${file}: literal`));
  }
  const data: Record<string, string> = {};
  for (const [key, value] of pairs) {
    if (key in data) throw new Error(`${file}: ${gen.name} defines ${key} twice`);
    data[key] = kind === 'Secret' ? Buffer.from(value, 'utf8').toString('base64') : value;
  }
  const labels = { ...(options.labels as Record<string, string> | undefined), ...(own.labels as Record<string, string> | undefined) };
  const annotations = {
    ...(options.annotations as Record<string, string> | undefined),
    ...(own.annotations as Record<string, string> | undefined),
  };
  const metadata: K8sObject['metadata'] = { name: gen.name };
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  return kind === 'Secret'
    ? { apiVersion: 'v1', kind, metadata, type: typeof gen.type === 'string' ? gen.type : 'Opaque', data }
    : { apiVersion: 'v1', kind, metadata, data };
}

function applyPatch(objects: K8sObject[], entry: Json, dir: string, file: string): void {
  if (!isObject(entry)) throw new Error(`${file}: a patch entry must be a mapping`);
  for (const key of Object.keys(entry)) {
    if (!['path', 'patch', 'target'].includes(key)) throw new Error(`${file}: patches.${key} is not implemented`);
  }
  const text =
    typeof entry.patch === 'string'
      ? entry.patch
      : typeof entry.path === 'string'
        ? readFileSync(resolve(dir, entry.path), 'utf8')
        : undefined;
  if (text === undefined) throw new Error(`${file}: a patch needs patch or path`);
  const docs = parseAllDocuments(text).map((d) => d.toJS() as Json);
  if (docs.length !== 1 || !isObject(docs[0]))
    throw new Error(`${file}: only single strategic merge patches are implemented (no JSON 6902, no multi-document patch)`);
  const patch = asObject(docs[0], `${file}: patch`);
  let targets: K8sObject[];
  if (entry.target !== undefined) {
    if (!isObject(entry.target)) throw new Error(`${file}: target must be a mapping`);
    const { kind, name, ...rest } = entry.target;
    if (Object.keys(rest).length > 0) throw new Error(`${file}: target.${Object.keys(rest)[0]} is not implemented (kind and name only)`);
    if (typeof kind !== 'string') throw new Error(`${file}: target needs a kind`);
    // kustomize reads target.name as a regular expression; plain names keep this an exact match.
    if (name !== undefined && (typeof name !== 'string' || !/^[a-z0-9-]+$/.test(name)))
      throw new Error(`${file}: target.name must be a plain name`);
    if (patch.kind !== kind) throw new Error(`${file}: patch kind ${patch.kind} differs from its target kind ${kind}`);
    targets = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  } else {
    targets = objects.filter((o) => o.kind === patch.kind && o.apiVersion === patch.apiVersion && o.metadata.name === patch.metadata.name);
  }
  if (targets.length === 0) throw new Error(`${file}: a patch of ${patch.kind} ${patch.metadata.name} matches nothing`);
  // The identity of the target is not patched; only the rest of the patch's metadata is.
  const { apiVersion: _a, kind: _k, metadata, ...body } = patch as unknown as JsonObject;
  const { name: _n, ...restMeta } = metadata as JsonObject;
  const content: JsonObject = Object.keys(restMeta).length > 0 ? { ...body, metadata: restMeta } : body;
  for (const target of targets) strategicMerge(target as unknown as JsonObject, content, isBuiltIn(target.apiVersion), target.kind);
}

/**
 * A strategic merge patch: maps merge recursively, null deletes a key, scalars
 * replace. Lists of built-in kinds merge by the key of MERGE_KEYS; lists of
 * custom resources are replaced whole (kustomize has no schema for them).
 */
export function strategicMerge(target: JsonObject, patch: JsonObject, builtIn: boolean, where: string): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) throw new Error(`${where}: patch directive ${key} is not implemented`);
    if (value === null) {
      delete target[key];
    } else if (Array.isArray(value)) {
      if (!builtIn) {
        target[key] = structuredClone(value);
        continue;
      }
      const mergeKey = MERGE_KEYS[key];
      if (!mergeKey) throw new Error(`${where}: patching the list "${key}" is not implemented (its merge strategy is not known here)`);
      const current = Array.isArray(target[key]) ? (target[key] as Json[]) : (target[key] = []);
      for (const item of value) {
        if (!isObject(item) || item[mergeKey] === undefined)
          throw new Error(`${where}: an item of "${key}" needs its merge key ${mergeKey}`);
        const match = current.find((c) => isObject(c) && c[mergeKey] === item[mergeKey]);
        if (match) strategicMerge(match as JsonObject, item, builtIn, `${where}.${key}[${String(item[mergeKey])}]`);
        else current.push(structuredClone(item));
      }
    } else if (isObject(value)) {
      if (!isObject(target[key])) target[key] = {};
      strategicMerge(target[key] as JsonObject, value, builtIn, `${where}.${key}`);
    } else {
      target[key] = value;
    }
  }
}

/** Splits an image reference into name, tag and digest ("host:5000/a/b:1.2@sha256:…"). */
export function parseImage(ref: string): { name: string; tag?: string; digest?: string } {
  const [rest, digest] = ref.split('@', 2);
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) return { name: rest.slice(0, colon), tag: rest.slice(colon + 1), digest };
  return { name: rest, digest };
}

/** kustomize's images transformer: every container and initContainer image whose name matches. */
function setImages(node: Json, img: { name: string; newName?: string; newTag?: string; digest?: string }): void {
  if (Array.isArray(node)) {
    node.forEach((n) => setImages(n, img));
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
      for (const c of value) {
        if (!isObject(c) || typeof c.image !== 'string') continue;
        const cur = parseImage(c.image);
        if (cur.name !== img.name) continue;
        const name = img.newName ?? cur.name;
        if (img.digest) c.image = `${name}@${img.digest}`;
        else if (img.newTag) c.image = `${name}:${img.newTag}`;
        else c.image = `${name}${cur.tag ? `:${cur.tag}` : ''}${cur.digest ? `@${cur.digest}` : ''}`;
      }
    }
    setImages(value, img);
  }
}

/** Every .yaml/.yml file below `dir`, for checks that look at all of k8s/. */
export function yamlFilesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const abs = join(d, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else if (/\.ya?ml$/.test(name)) out.push(abs);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}

/** The files a kustomization reads (its own, its resource files and bases', patch and env files), for the orphan check. */
export function filesOfKustomization(dir: string): string[] {
  const file = join(dir, 'kustomization.yaml');
  const [k] = readYamlDocuments(file) as JsonObject[];
  const out = [file];
  for (const entry of list(k.resources, file)) {
    const path = resolve(dir, String(entry));
    if (statSync(path).isDirectory()) out.push(...filesOfKustomization(path));
    else out.push(path);
  }
  for (const entry of list(k.patches, file)) if (isObject(entry) && typeof entry.path === 'string') out.push(resolve(dir, entry.path));
  return out;
}
