import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { parse } from 'yaml';

/**
 * The lead router's Prometheus rules as the tests read them, and the one
 * shape every alert has (deploy/prometheus/rules/lead-router.rules.yml):
 * `<series> <op> <number>`, optionally followed by
 * `and on(<labels>) <series> <op> <number>`, where a series is a metric name
 * with an optional `{…}` selector. Because of that shape, an alert is
 * "normally empty, yet sound" exactly when each of its series exists: the
 * e2e query test evaluates those series (the alert's probes) and requires an
 * answer from each, and evaluates the alert's own expression for its syntax.
 */

export const ROOT = resolve(__dirname, '../..');
export const RULES_FILE = 'deploy/prometheus/rules/lead-router.rules.yml';
export const RULE_TESTS_FILE = 'deploy/prometheus/tests/lead-router.rules.test.yml';
export const PROMETHEUS_CONFIG = 'deploy/prometheus/prometheus.yml';
export const PROMETHEUS_RULE_MANIFEST = 'k8s/monitoring/prometheus-rule.yaml';

export interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface RecordingRule {
  record: string;
  expr: string;
  labels?: Record<string, string>;
}
export interface RuleGroup {
  name: string;
  interval?: string;
  rules: Array<AlertingRule | RecordingRule>;
}

export function readYaml<T>(file: string): T {
  return parse(readFileSync(join(ROOT, file), 'utf8')) as T;
}

export function ruleGroups(file = RULES_FILE): RuleGroup[] {
  return readYaml<{ groups: RuleGroup[] }>(file).groups;
}

export const alertingRules = (groups: RuleGroup[]): AlertingRule[] =>
  groups.flatMap((g) => g.rules).filter((r): r is AlertingRule => 'alert' in r);
export const recordingRules = (groups: RuleGroup[]): RecordingRule[] =>
  groups.flatMap((g) => g.rules).filter((r): r is RecordingRule => 'record' in r);

/** One comparison of an alert: the series it reads (its probe), the operator and the threshold. */
export interface Comparison {
  series: string;
  metric: string;
  op: string;
  threshold: number;
}

const SERIES = String.raw`([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^{}]*\})?`;
const COMPARISON = new RegExp(String.raw`^${SERIES}\s*(==|!=|>=|<=|>|<)\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)$`);
const AND_ON = /\s+and\s+on\s*\(\s*[a-zA-Z_][a-zA-Z0-9_]*(?:\s*,\s*[a-zA-Z_][a-zA-Z0-9_]*)*\s*\)\s+/;

/** The comparisons of an alert's expression, or undefined when it does not have the shape above. */
export function comparisonsOf(expr: string): Comparison[] | undefined {
  const parts = expr.trim().split(AND_ON);
  const out: Comparison[] = [];
  for (const part of parts) {
    const m = COMPARISON.exec(part.trim());
    if (!m) return undefined;
    out.push({ series: `${m[1]}${m[2] ?? ''}`, metric: m[1], op: m[3], threshold: Number(m[4]) });
  }
  return out;
}

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to dashes. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of markdown.split(/\r?\n/)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m)
      anchors.add(
        m[1]
          .toLowerCase()
          .replace(/`/g, '')
          .replace(/[^\p{L}\p{N}\s_-]/gu, '')
          .trim()
          .replace(/\s/g, '-'),
      );
  }
  return anchors;
}

/**
 * Where Debian's `prometheus` package puts promtool, or promtool on PATH.
 * Throws a message that says how to get it when it is missing.
 */
export function promtoolPath(): string {
  const candidates = [...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'promtool')), '/usr/bin/promtool'];
  const found = candidates.find((c) => c && existsSync(c));
  if (!found) {
    throw new Error(
      "promtool is missing. The rule tests need it: install Debian's prometheus package " +
        '(`DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus`, as .ci/run does), ' +
        'or put any promtool 2.x on PATH.',
    );
  }
  return found;
}

/** Runs promtool with the repository as working directory: its exit status and its whole output. */
export function promtool(...args: string[]): { status: number | null; output: string } {
  const r = spawnSync(promtoolPath(), args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}
