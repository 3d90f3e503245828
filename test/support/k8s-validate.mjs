// Validates Kubernetes objects against the schemas of kubernetes-models and
// @kubernetes-models/keda. Those packages are ESM-only, so jest cannot load
// them: test/tools/k8s-schemas.tool-spec.ts runs this file in a child `node`.
//
// stdin:  a JSON array of objects
// stdout: a JSON array, one entry per object: { "errors": [] } when it is valid,
//         otherwise the schema's messages (an object with no model is an error too)
import { readFileSync } from 'node:fs';

const MODULES = JSON.parse(readFileSync(new URL('./k8s-models.json', import.meta.url), 'utf8'));

async function modelOf(apiVersion, kind) {
  const specifier = MODULES[apiVersion];
  if (!specifier) return undefined;
  const Model = (await import(specifier))[kind];
  // Each group module also exports its nested types (Container, PodSpec, …): only a top-level kind names itself.
  return typeof Model === 'function' && Model.apiVersion === apiVersion && Model.kind === kind ? Model : undefined;
}

const objects = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const object of objects) {
  const Model = await modelOf(object?.apiVersion, object?.kind);
  if (!Model) {
    results.push({ errors: [`no schema for ${object?.apiVersion} ${object?.kind} (test/support/k8s-models.json)`] });
    continue;
  }
  try {
    new Model(object).validate();
    results.push({ errors: [] });
  } catch (e) {
    results.push({ errors: String(e?.message ?? e).split(/, (?=data\/)/) });
  }
}
process.stdout.write(JSON.stringify(results));
