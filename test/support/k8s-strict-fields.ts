import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * The schemas of kubernetes-models reject wrong types and missing required
 * fields but accept unknown ones (`readinesProbe:` would pass silently). This
 * check finds those: it type-checks every object as an object literal of the
 * model's own TypeScript interface (IDeployment, IScaledObject, …), and the
 * compiler's excess-property check reports any field the interface does not
 * declare, at any depth. Same package, same API version, so the same field set.
 */

const ROOT = resolve(__dirname, '../..');
const MODULES: Record<string, string> = JSON.parse(readFileSync(join(__dirname, 'k8s-models.json'), 'utf8'));

interface Typed {
  apiVersion: string;
  kind: string;
}

/** For each object, the compiler's complaints about it (an empty list when every field is known and well typed). */
export function fieldErrors(objects: readonly Typed[]): string[][] {
  const groups = [...new Set(objects.map((o) => o.apiVersion))].filter((v) => MODULES[v]);
  const alias = new Map(groups.map((g, n) => [g, `M${n}`]));
  const header = groups.map((g) => `import type * as ${alias.get(g)} from ${JSON.stringify(MODULES[g])};`);
  // One object per line, so a diagnostic's line names its object.
  const body = objects.map((o, n) => {
    const type = alias.has(o.apiVersion) ? `${alias.get(o.apiVersion)}.I${o.kind}` : 'never';
    return `export const o${n}: ${type} = ${JSON.stringify(o)};`;
  });
  const fileName = join(ROOT, 'test/support/__k8s_fields_check__.ts');
  const source = [...header, ...body].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options, true);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => (resolve(f) === fileName ? source : readFile(f));
  host.fileExists = (
    (exists) => (f: string) =>
      resolve(f) === fileName || exists(f)
  )(host.fileExists.bind(host));
  host.getSourceFile = (f, lang, onError, create) =>
    resolve(f) === fileName ? ts.createSourceFile(f, source, lang, true, ts.ScriptKind.TS) : getSourceFile(f, lang, onError, create);

  const program = ts.createProgram([fileName], options, host);
  const results: string[][] = objects.map(() => []);
  const diagnostics = [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics(), ...program.getGlobalDiagnostics()];
  for (const d of diagnostics) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const index = line - header.length;
    if (d.file && resolve(d.file.fileName) === fileName && index >= 0 && index < objects.length) {
      const o = objects[index];
      results[index].push(alias.has(o.apiVersion) ? message : `no model for ${o.apiVersion} ${o.kind}`);
    } else {
      // An import that does not resolve, or a problem in the models themselves: the check cannot be trusted.
      throw new Error(`k8s field check failed outside the objects: ${message}`);
    }
  }
  return results;
}
