import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';
import { REFUSAL, SUBMIT, type Decision } from '../../libs/domain/src/decisions/decision-catalog';

/**
 * Architecture rules (../shared/design/ARCHITECTURE.md: "Apps depend on libs,
 * never on each other"; libs/domain holds pure rules). Every .ts file under
 * apps/ and libs/ is parsed with the TypeScript compiler, and every module it
 * names is checked: import/export … from, side-effect imports, import x =
 * require(), require(), dynamic import() and import('…') types.
 *
 * A broken rule shows up as a failing test named after the file, line and
 * import, e.g. `apps/checks/src/main.ts:3 imports '../../gateway/src/x'`.
 */

const ROOT = resolve(__dirname, '../..');
const rel = (abs: string) => relative(ROOT, abs).split(sep).join('/');

interface ImportRef {
  file: string; // repository-relative, forward slashes
  line: number;
  specifier: string;
}

interface Violation extends ImportRef {
  reason: string;
}

function listTsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const abs = join(dir, name);
    if (statSync(abs).isDirectory()) out.push(...listTsFiles(abs));
    else if (name.endsWith('.ts')) out.push(abs);
  }
  return out;
}

/** Every module specifier a source file names, with its line. */
export function importsOf(fileName: string, text: string): Array<{ line: number; specifier: string }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Array<{ line: number; specifier: string }> = [];
  const add = (node: ts.Node, literal: ts.Node | undefined) => {
    if (literal && ts.isStringLiteralLike(literal)) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, specifier: literal.text });
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const isRequireResolve =
        ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'require';
      if ((isRequire || isRequireResolve || callee.kind === ts.SyntaxKind.ImportKeyword) && node.arguments.length > 0) {
        add(node, node.arguments[0]);
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = [...listTsFiles(join(ROOT, 'apps')), ...listTsFiles(join(ROOT, 'libs'))].sort();
const refs: ImportRef[] = files.flatMap((abs) =>
  importsOf(abs, readFileSync(abs, 'utf8')).map((i) => ({ file: rel(abs), line: i.line, specifier: i.specifier })),
);

const isRelative = (s: string) => s === '.' || s === '..' || s.startsWith('./') || s.startsWith('../');
/** Repository-relative path a relative specifier points at (no extension resolution needed). */
const target = (r: ImportRef) => rel(resolve(ROOT, dirname(r.file), r.specifier));
/** `apps/<name>` or `libs/<name>` of a repository-relative path, or undefined. */
const unitOf = (path: string) => /^((?:apps|libs)\/[^/]+)(?:\/|$)/.exec(path)?.[1];
const isTestFile = (file: string) => /\.(spec|tool-spec|medium-spec|int-spec|e2e-spec)\.ts$/.test(file);

// (c) Modules libs/domain must not import: frameworks, drivers, I/O, the libs that wrap them, and libs/contracts (whose messages are written in the domain's vocabulary).
const FORBIDDEN_IN_DOMAIN: Array<{ name: string; test: (s: string) => boolean }> = [
  { name: '@nestjs/*', test: (s) => s.startsWith('@nestjs/') },
  ...['typeorm', 'pg', 'ioredis', 'amqplib', 'amqp-connection-manager'].map((m) => ({
    name: m,
    test: (s: string) => s === m || s.startsWith(`${m}/`),
  })),
  ...['fs', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'dns', 'child_process'].map((m) => ({
    name: m,
    test: (s: string) => [m, `node:${m}`].some((b) => s === b || s.startsWith(`${b}/`)),
  })),
  ...[
    '@lr/persistence',
    '@lr/messaging',
    '@lr/redis',
    '@lr/platform',
    '@lr/observability',
    '@lr/http-client',
    '@lr/jobs',
    '@lr/use-cases',
    // The domain owns its vocabulary (vocabulary/); libs/contracts writes its messages in it, never the other way round.
    '@lr/contracts',
    '@lr/search-state',
  ].map((m) => ({
    name: m,
    test: (s: string) => s === m || s.startsWith(`${m}/`),
  })),
];
/**
 * The one carve-out: a domain *test* may read its fixture files with fs
 * (libs/domain/src/catalog/validate-catalog.spec.ts does). The library code
 * itself, the part that ships, may not; and tests still may not pull in
 * frameworks, drivers or the I/O libs.
 */
const ALLOWED_IN_DOMAIN_TESTS = new Set(['fs']);

/** The forbidden module a libs/domain file's import names, if any. */
function forbiddenInDomain(file: string, specifier: string): string | undefined {
  const hit = FORBIDDEN_IN_DOMAIN.find((f) => f.test(specifier));
  if (!hit || (isTestFile(file) && ALLOWED_IN_DOMAIN_TESTS.has(hit.name))) return undefined;
  return hit.name;
}

function appViolations(): Violation[] {
  return refs.flatMap((r): Violation[] => {
    const own = unitOf(r.file);
    if (!own?.startsWith('apps/')) return [];
    if (isRelative(r.specifier)) {
      const to = target(r);
      if (to === own || to.startsWith(`${own}/`)) return [];
      // A test next to its code may use the shared test helpers (they live under test/, never in shipped code).
      if (isTestFile(r.file) && to.startsWith('test/support/')) return [];
      return [{ ...r, reason: `relative import leaves ${own}/ (resolves to ${to}); use an @lr/* library instead` }];
    }
    if (r.specifier.includes('apps/')) return [{ ...r, reason: `import path names apps/; an app never imports another app` }];
    return [];
  });
}

function libViolations(): Violation[] {
  return refs.flatMap((r): Violation[] => {
    if (!unitOf(r.file)?.startsWith('libs/')) return [];
    if (isRelative(r.specifier)) {
      const to = target(r);
      if (to === 'apps' || to.startsWith('apps/')) return [{ ...r, reason: `libs never import from apps (resolves to ${to})` }];
      return [];
    }
    if (r.specifier.includes('apps/')) return [{ ...r, reason: 'libs never import from apps' }];
    return [];
  });
}

/**
 * The libraries in layers, lowest first: a library imports only libraries of
 * lower layers (by @lr/<name> or by a relative path), never one of its own
 * layer or above. libs/domain is at the bottom: pure rules, and the vocabulary
 * they are stated in; libs/contracts writes its messages in that vocabulary.
 * libs/platform, the wiring, is at the top. A new library gets a layer here.
 */
export const LIB_LAYERS: readonly (readonly string[])[] = [
  ['domain', 'http-client'],
  ['config', 'contracts'],
  ['observability'],
  ['persistence', 'messaging', 'redis'],
  ['jobs', 'use-cases', 'search-state'],
  ['platform'],
];
const layerOf = (lib: string) => LIB_LAYERS.findIndex((layer) => layer.includes(lib));

/** The library a reference names, by @lr/<name> or by a relative path into libs/<name>, if any. */
function libraryNamed(r: ImportRef): string | undefined {
  if (isRelative(r.specifier)) return /^libs\/([^/]+)/.exec(target(r))?.[1];
  return /^@lr\/([a-z-]+)(?:\/|$)/.exec(r.specifier)?.[1];
}

/** Why a library's import breaks the layers, if it does. */
function layerViolation(r: ImportRef): string | undefined {
  const own = /^libs\/([^/]+)\//.exec(r.file)?.[1];
  const named = own === undefined ? undefined : libraryNamed(r);
  if (own === undefined || named === undefined || named === own) return undefined;
  if (layerOf(own) === -1) return `libs/${own} has no layer in LIB_LAYERS`;
  if (layerOf(named) === -1) return `libs/${named} has no layer in LIB_LAYERS`;
  if (layerOf(named) < layerOf(own)) return undefined;
  return `libs/${own} (layer ${layerOf(own)}) imports libs/${named} (layer ${layerOf(named)}): only lower layers`;
}

function layerViolations(): Violation[] {
  return refs.flatMap((r): Violation[] => {
    const reason = layerViolation(r);
    return reason === undefined ? [] : [{ ...r, reason }];
  });
}

/** The repositories of libs/persistence: each stands on the shared queries (libs/persistence/src/queries), never on another repository. */
const REPOSITORIES = 'libs/persistence/src/repositories';
/** The modules that hand the repositories on: their folder's index and the library's. */
const REPOSITORY_FACES = new Set([REPOSITORIES, `${REPOSITORIES}/index`, 'libs/persistence/src', 'libs/persistence/src/index']);

/** Why a repository file's import names another repository file (relative, through an index, or as @lr/persistence), if it does. */
function repositoryImportViolation(r: ImportRef): string | undefined {
  if (!r.file.startsWith(`${REPOSITORIES}/`) || isTestFile(r.file) || r.file === `${REPOSITORIES}/index.ts`) return undefined;
  if (r.specifier === '@lr/persistence' || r.specifier.startsWith('@lr/persistence/')) return 'a repository imports its own library';
  if (!isRelative(r.specifier)) return undefined;
  const to = target(r).replace(/\.(ts|js)$/, '');
  if (REPOSITORY_FACES.has(to)) return `a repository imports the repositories through an index (resolves to ${to})`;
  if (to.startsWith(`${REPOSITORIES}/`))
    return `a repository imports another repository file (resolves to ${to}); shared SQL lives in libs/persistence/src/queries`;
  return undefined;
}

function repositoryViolations(): Violation[] {
  return refs.flatMap((r): Violation[] => {
    const reason = repositoryImportViolation(r);
    return reason ? [{ ...r, reason }] : [];
  });
}

function domainViolations(): Violation[] {
  return refs.flatMap((r): Violation[] => {
    if (unitOf(r.file) !== 'libs/domain') return [];
    if (isRelative(r.specifier)) {
      const to = target(r);
      if (to === 'libs/domain' || to.startsWith('libs/domain/')) return [];
      // A domain test may build its offers with the shared test helpers (test/support/catalog-builder.ts), as every tier does.
      if (isTestFile(r.file) && to.startsWith('test/support/')) return [];
      return [
        {
          ...r,
          reason: `relative import leaves libs/domain/ (resolves to ${to}); the domain library depends on nothing of ours but pure libs`,
        },
      ];
    }
    const hit = forbiddenInDomain(r.file, r.specifier);
    return hit ? [{ ...r, reason: `libs/domain is pure: no framework, driver or I/O module (${hit})` }] : [];
  });
}

/** One failing test per violation, named after it; one passing test when there is none. */
function expectNoViolations(what: string, violations: Violation[]): void {
  if (violations.length === 0) {
    it(`${what}: no violations`, () => expect(violations).toEqual([]));
    return;
  }
  for (const v of violations) {
    it(`${v.file}:${v.line} imports '${v.specifier}'`, () => {
      throw new Error(`${v.file}:${v.line} imports '${v.specifier}': ${v.reason}`);
    });
  }
}

/** Every string and template literal of a source file (template literals with their `${…}` parts left out), with its line. */
export function literalsOf(fileName: string, text: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Array<{ line: number; text: string }> = [];
  const at = (n: ts.Node) => source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push({ line: at(node), text: node.text });
    else if (ts.isTemplateExpression(node))
      found.push({ line: at(node), text: [node.head.text, ...node.templateSpans.map((sp) => sp.literal.text)].join(' … ') });
    if (!ts.isImportDeclaration(node) && !ts.isExportDeclaration(node)) ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** SQL as a statement's text has it: a query, a write or a schema change. */
export const SQL =
  /\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+[a-z_]+\s+(?:[a-z]+\s+)?SET\b|\bDELETE\s+FROM\b|\bCREATE\s+(?:TABLE|INDEX|UNIQUE\s+INDEX|FUNCTION|TRIGGER)\b|\bpg_advisory|\bSELECT\s+1\b/;

/** Where SQL may be written: the repositories (one per aggregate), the fragments and helpers they share, the migrations, and the database's own set-up. */
const SQL_HOMES = [
  /^libs\/persistence\/src\/repositories\//,
  /^libs\/persistence\/src\/queries\//,
  /^libs\/persistence\/src\/migrations\//,
  /^libs\/persistence\/src\/(migrate|ensure-database)\.ts$/,
];

const sources = files.filter((f) => !isTestFile(rel(f))).map((abs) => ({ file: rel(abs), text: readFileSync(abs, 'utf8') }));
const literals = sources.flatMap(({ file, text }) => literalsOf(file, text).map((l) => ({ file, ...l })));

function sqlViolations(): Violation[] {
  return literals
    .filter((l) => SQL.test(l.text) && !SQL_HOMES.some((home) => home.test(l.file)))
    .map((l) => ({
      file: l.file,
      line: l.line,
      specifier: l.text.slice(0, 60).replace(/\s+/g, ' '),
      reason: 'SQL outside libs/persistence/src/repositories and queries',
    }));
}

/** A type derived from PostgreSQL's description of a statement (row-types.generated.ts). */
const DERIVED = /\bRowTypes\[|\bWithDocuments<|\bRowOf</;

/**
 * Row types declared by hand in a repository file: an interface or type
 * alias whose name ends in `Row` (unless derived from RowTypes), or an
 * explicit type argument on `run<…>(`.
 */
export function handRowTypesOf(fileName: string, text: string): Array<{ line: number; what: string }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Array<{ line: number; what: string }> = [];
  const at = (n: ts.Node) => source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1;
  const visit = (node: ts.Node) => {
    if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && /Row$/.test(node.name.text)) {
      const derived = ts.isTypeAliasDeclaration(node) && DERIVED.test(node.type.getText(source));
      if (!derived) found.push({ line: at(node), what: `type ${node.name.text}` });
    } else if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'run' &&
      node.typeArguments?.length
    ) {
      found.push({ line: at(node), what: `run<${node.typeArguments.map((a) => a.getText(source)).join(', ')}>(` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function rowTypeViolations(): Violation[] {
  return sources
    .filter(({ file }) => file.startsWith(`${REPOSITORIES}/`))
    .flatMap(({ file, text }) =>
      handRowTypesOf(file, text).map((h) => ({
        file,
        line: h.line,
        specifier: h.what,
        reason:
          "a row type declared by hand: rows are typed from PostgreSQL's description of the statement (RowTypes; npm run db:row-types)",
      })),
    );
}

/**
 * The answers' reasons of the decision catalog (libs/domain decisions): each
 * fixed reason is written there and nowhere else in the shipped code. (`OK`
 * is also a code, and the builders' reasons are made from their arguments.)
 */
const CATALOG_REASONS = new Set(
  [...Object.values(SUBMIT), ...Object.values(REFUSAL)].filter((d): d is Decision => typeof d === 'object').map((d) => d.reason),
);

/** The literals that state a rule of libs/domain when written elsewhere. */
const RULE_LITERALS: Array<{ what: string; test: (text: string) => boolean; allowed: RegExp[] }> = [
  { what: 'a reason of the decision catalog', test: (t) => CATALOG_REASONS.has(t), allowed: [/^libs\/domain\/src\/decisions\//] },
  {
    // Offer types are vocabulary (types, CHECK constraints, OpenAPI enums) everywhere; what each one means is decided in libs/domain.
    what: 'an offer type',
    test: (t) => t === 'true_exclusive' || t === 'exclusive',
    allowed: [
      /^libs\/domain\//,
      /^libs\/contracts\//,
      /^libs\/persistence\/src\/migrations\//,
      /^libs\/persistence\/src\/queries\/row-types\.generated\.ts$/,
      /^apps\/sandbox\//,
    ],
  },
];

function ruleLiteralViolations(): Violation[] {
  return literals.flatMap((l) => {
    const rule = RULE_LITERALS.find((r) => r.test(l.text) && !r.allowed.some((a) => a.test(l.file)));
    return rule ? [{ file: l.file, line: l.line, specifier: l.text, reason: `${rule.what} written outside libs/domain` }] : [];
  });
}

/** Code that decides by test mode or money rounding itself instead of asking libs/domain (test-mode/, money/). */
const RULE_CODE: Array<{ what: string; pattern: RegExp }> = [
  {
    what: 'a branch on test mode (ask libs/domain testMode)',
    pattern: /\bisTest\s*\?|if\s*\([^)]*\bisTest\b|\bisTest\s*&&|!\s*[\w.]*isTest\b/,
  },
  { what: 'money rounded by hand (libs/domain money: exact cents)', pattern: /Math\.round\([^)]*\*\s*100\b/ },
  { what: 'the sale limit compared (libs/domain sales)', pattern: /[<>]=?\s*MAX_ACCEPTED_SUBMISSIONS\b|\bMAX_ACCEPTED_SUBMISSIONS\s*[<>]/ },
];
const RULE_CODE_HOMES = [/^libs\/domain\//, /^libs\/contracts\//];

function ruleCodeViolations(): Violation[] {
  return sources.flatMap(({ file, text }) => {
    if (RULE_CODE_HOMES.some((h) => h.test(file))) return [];
    return text.split('\n').flatMap((lineText, n) => {
      const rule = RULE_CODE.find((r) => r.pattern.test(lineText));
      return rule ? [{ file, line: n + 1, specifier: lineText.trim().slice(0, 60), reason: `${rule.what} outside libs/domain` }] : [];
    });
  });
}

/**
 * An offer is judged by libs/domain judgeOffers alone (qualify/): its two
 * phases, eligibility then the sale facts read for the offers still in, are
 * not exported, and no file outside libs/domain names them (tests and benches
 * included), so no caller composes them again in its own order.
 */
export const QUALIFY_PHASES = /\b(eligibilityVerdict|saleVerdict)\b/;
const THIS_FILE = 'test/unit/architecture.spec.ts';
function qualifyPhaseViolations(): Violation[] {
  const everywhere = ['apps', 'libs', 'test', 'bench', 'packages']
    .flatMap((d) => listTsFiles(join(ROOT, d)))
    .map((abs) => ({ abs, file: rel(abs) }))
    .filter(({ file }) => !file.startsWith('libs/domain/') && file !== THIS_FILE);
  return everywhere.flatMap(({ abs, file }) =>
    readFileSync(abs, 'utf8')
      .split('\n')
      .flatMap((lineText, n) =>
        QUALIFY_PHASES.test(lineText)
          ? [{ file, line: n + 1, specifier: lineText.trim().slice(0, 60), reason: 'a phase of judgeOffers named outside libs/domain' }]
          : [],
      ),
  );
}

/** Test helpers live under test/: shipped code imports no test framework or mock, and names no fixture file. */
const TEST_ONLY_MODULES = ['@nestjs/testing', 'fast-check', '@jest/globals', 'jest'];
function testHelperViolations(): Violation[] {
  const imports = refs.flatMap((r): Violation[] => {
    if (isTestFile(r.file) || !TEST_ONLY_MODULES.some((m) => r.specifier === m || r.specifier.startsWith(`${m}/`))) return [];
    return [{ ...r, reason: 'a test module imported by shipped code (test helpers live under test/)' }];
  });
  const mocks = sources.flatMap(({ file, text }) =>
    /\bMockAgent\b|\.fixture\.ts$|(^|\/)mock[-.]/.test(text.includes('MockAgent') ? text : file)
      ? [{ file, line: 1, specifier: file, reason: 'a mock or fixture outside test/' }]
      : [],
  );
  return [...imports, ...mocks];
}

describe('architecture', () => {
  describe('the scan itself', () => {
    it('finds the sources of every app and library', () => {
      const units = new Set(files.map((f) => unitOf(rel(f))));
      for (const d of ['apps', 'libs']) {
        for (const name of readdirSync(join(ROOT, d))) {
          if (statSync(join(ROOT, d, name)).isDirectory()) expect(units).toContain(`${d}/${name}`);
        }
      }
      expect(files).toContain(join(ROOT, 'libs/domain/src/index.ts'));
      for (const name of readdirSync(join(ROOT, 'libs'))) {
        if (statSync(join(ROOT, 'libs', name)).isDirectory()) expect([name, layerOf(name)]).not.toEqual([name, -1]);
      }
      expect(refs.length).toBeGreaterThan(files.length / 2);
    });

    it('sees every form of import', () => {
      const text = [
        "import { a } from 'm-named';",
        "import * as b from 'm-namespace';",
        "import 'm-side-effect';",
        "import type { C } from 'm-type';",
        "export { d } from 'm-reexport';",
        "export * from 'm-star';",
        "import e = require('m-import-equals');",
        "const f = require('m-require');",
        "const g = require.resolve('m-require-resolve');",
        "const h = import('m-dynamic');",
        "let i: import('m-import-type').T;",
      ].join('\n');
      expect(importsOf('x.ts', text)).toEqual(
        [
          'm-named',
          'm-namespace',
          'm-side-effect',
          'm-type',
          'm-reexport',
          'm-star',
          'm-import-equals',
          'm-require',
          'm-require-resolve',
          'm-dynamic',
          'm-import-type',
        ].map((specifier, n) => ({ line: n + 1, specifier })),
      );
    });

    it('flags what the rules are meant to flag', () => {
      const fake = (file: string, specifier: string): ImportRef => ({ file, line: 1, specifier });
      expect(target(fake('apps/checks/src/main.ts', '../../gateway/src/x'))).toBe('apps/gateway/src/x');
      expect(unitOf(target(fake('libs/domain/src/catalog/x.ts', '../../../persistence/src')))).toBe('libs/persistence');
      expect(layerViolation(fake('libs/platform/src/x.ts', '@lr/jobs'))).toBeUndefined();
      expect(layerViolation(fake('libs/jobs/src/x.ts', '@lr/platform'))).toMatch(/only lower layers/);
      expect(layerViolation(fake('libs/jobs/src/x.ts', '../../platform/src'))).toMatch(/only lower layers/);
      expect(layerViolation(fake('libs/persistence/src/x.ts', '@lr/redis'))).toMatch(/only lower layers/);
      expect(layerViolation(fake('libs/contracts/src/x.ts', '@lr/domain'))).toBeUndefined();
      expect(layerViolation(fake('libs/domain/src/x.ts', '@lr/contracts'))).toMatch(/only lower layers/);
      expect(layerViolation(fake('libs/domain/src/x.ts', './y'))).toBeUndefined();
      const domain = (s: string, file = 'libs/domain/src/x.ts') => forbiddenInDomain(file, s) !== undefined;
      for (const s of [
        '@nestjs/common',
        'typeorm',
        'pg',
        'pg/lib/x',
        'ioredis',
        'amqplib',
        'amqp-connection-manager',
        'node:fs',
        'fs/promises',
        'node:fs/promises',
        'net',
        'node:http',
        'http',
        '@lr/persistence',
        '@lr/messaging',
        '@lr/redis',
        '@lr/platform',
        '@lr/observability',
        '@lr/http-client',
        '@lr/jobs',
        '@lr/use-cases',
        '@lr/contracts',
        '@lr/search-state',
      ]) {
        expect([s, domain(s)]).toEqual([s, true]);
      }
      for (const s of ['validator', 'validator/lib/isEmail', 'ipaddr.js', 'class-validator', 'pgp', 'fsevents', 'node:path']) {
        expect([s, domain(s)]).toEqual([s, false]);
      }
      expect(domain('node:fs', 'libs/domain/src/x.spec.ts')).toBe(false);
      const repo = (specifier: string, file = 'libs/persistence/src/repositories/x.repository.ts') =>
        repositoryImportViolation(fake(file, specifier)) !== undefined;
      for (const s of ['./lead.repository', './index', '.', '..', '../index', '../repositories/lead.repository', '@lr/persistence']) {
        expect([s, repo(s)]).toEqual([s, true]);
      }
      for (const s of ['../queries/sql', '../queries', '../partitions/partition-days', '@lr/domain', 'typeorm'])
        expect([s, repo(s)]).toEqual([s, false]);
      expect(repo('./lead.repository', 'libs/persistence/src/repositories/x.medium-spec.ts')).toBe(false);
      expect(repo('./lead.repository', 'libs/persistence/src/queries/x.ts')).toBe(false);
      expect(domain('@nestjs/testing', 'libs/domain/src/x.spec.ts')).toBe(true);
    });
  });

  describe('(a) an app never imports from another app', () => expectNoViolations('apps/*', appViolations()));
  describe('(b) libs never import from apps', () => expectNoViolations('libs/*', libViolations()));
  describe('(c) libs/domain imports no framework or I/O module, and nothing from libs/contracts', () =>
    expectNoViolations('libs/domain', domainViolations()));
  describe('(h) a library imports only libraries of lower layers', () => expectNoViolations('library layers', layerViolations()));
  describe('(j) a repository never imports another repository file (libs/persistence/src/repositories)', () =>
    expectNoViolations('repositories', repositoryViolations()));

  describe('(i) repositories declare no row type by hand (rows are typed from RowTypes)', () =>
    expectNoViolations('row types', rowTypeViolations()));
  describe('(e) SQL is written only in the repositories and their shared queries (libs/persistence/src/repositories, queries)', () =>
    expectNoViolations('SQL', sqlViolations()));
  describe('(f) rules live only in libs/domain', () => {
    expectNoViolations('rule literals', ruleLiteralViolations());
    expectNoViolations('rule code', ruleCodeViolations());
    expectNoViolations('the phases of judgeOffers', qualifyPhaseViolations());
  });
  describe('(g) test helpers live only under test/', () => expectNoViolations('test helpers', testHelperViolations()));

  describe('the rule scans themselves', () => {
    it('recognise SQL, rule literals and rule code', () => {
      for (const sql of [
        'SELECT id FROM searches WHERE id = $1',
        'INSERT INTO leads (id) VALUES ($1)',
        'UPDATE leads SET status = $2',
        'UPDATE cap_usage u SET used = 1',
        'DELETE FROM dedupe_keys',
        'SELECT 1',
        'SELECT pg_advisory_xact_lock(1)',
      ]) {
        expect([sql, SQL.test(sql)]).toEqual([sql, true]);
      }
      for (const text of ['Select a program', 'update the settings', 'delete from the list later', 'select'])
        expect([text, SQL.test(text)]).toEqual([text, false]);
      expect(literalsOf('x.ts', "const a = `SELECT ${x} FROM t`; const b = 'Duplicate - Offer';").map((l) => l.text)).toEqual([
        'SELECT  …  FROM t',
        'Duplicate - Offer',
      ]);
      expect(CATALOG_REASONS.has('Duplicate - Offer')).toBe(true);
      expect(CATALOG_REASONS.has('Cap reached')).toBe(true);
      expect(RULE_CODE[0].pattern.test('const held = isTest ? 1 : 2;')).toBe(true);
      expect(RULE_CODE[0].pattern.test('if (msg.isTest) return')).toBe(true);
      expect(RULE_CODE[0].pattern.test('isTest: msg.isTest,')).toBe(false);
      expect(RULE_CODE[1].pattern.test('Math.round(amount * 100)')).toBe(true);
      expect(QUALIFY_PHASES.test('const v = eligibilityVerdict(o, lead, now, programs);')).toBe(true);
      expect(QUALIFY_PHASES.test('import { saleVerdict } from')).toBe(true);
      expect(QUALIFY_PHASES.test('judgeOffers(offers, lead, programs, now, mode).decide(facts)')).toBe(false);
      expect(
        handRowTypesOf(
          'x.ts',
          [
            'interface LeadRow { id: string }',
            'type CountRow = { n: number };',
            "type StoredRow = RowTypes['findLead'];",
            "type JsonRow = WithDocuments<'x', { a: A }>;",
            'const rows = await run<{ n: number }>(db, S);',
            'const typed = await run(db, S);',
            'interface LeadShape { id: string }',
          ].join('\n'),
        ),
      ).toEqual([
        { line: 1, what: 'type LeadRow' },
        { line: 2, what: 'type CountRow' },
        { line: 5, what: 'run<{ n: number }>(' },
      ]);
    });
  });

  describe('(d) docker-compose.yml runs every app', () => {
    const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8').split(/\r?\n/);
    // The `services:` block: from `services:` to the next top-level key. Its services are `  <name>:` lines.
    const start = compose.findIndex((l) => /^services:\s*(#.*)?$/.test(l));
    const end = compose.findIndex((l, n) => n > start && /^[^\s#]/.test(l));
    const block = compose.slice(start + 1, end === -1 ? undefined : end);
    const services = new Map<string, string>();
    let current: string | undefined;
    for (const line of block) {
      const m = /^ {2}([A-Za-z0-9._-]+):\s*(#.*)?$/.exec(line);
      if (m) services.set((current = m[1]), '');
      else if (current) services.set(current, `${services.get(current)}${line}\n`);
    }
    const apps = readdirSync(join(ROOT, 'apps'))
      .filter((n) => statSync(join(ROOT, 'apps', n)).isDirectory() && n !== 'ops')
      .sort();

    it('has a services block', () => {
      expect(start).toBeGreaterThanOrEqual(0);
      expect(apps.length).toBeGreaterThan(0);
    });

    it.each(apps)('has a service for apps/%s, running that app', (app) => {
      expect([...services.keys()]).toContain(app);
      // One image for every app: the service picks its app with APP=<name>.
      expect(services.get(app)).toMatch(new RegExp(`\\bAPP:\\s*["']?${app.replace(/[-]/g, '\\-')}["']?\\s*(#.*)?$`, 'm'));
    });
  });
});
