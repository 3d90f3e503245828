import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HTTP_SECONDS_BUCKETS } from '../../libs/observability/src/metrics';
import {
  PROMETHEUS_RULE_MANIFEST,
  ROOT,
  RULES_FILE,
  RULE_TESTS_FILE,
  alertingRules,
  comparisonsOf,
  headingAnchors,
  readYaml,
  recordingRules,
  ruleGroups,
} from '../support/prometheus-rules';

/**
 * The alert rules (deploy/prometheus/rules/lead-router.rules.yml), offline
 * (promtool's own checks of them are in test/tools/prometheus-rules.tool-spec.ts):
 * the rule unit tests (deploy/prometheus/tests) load the rules file and name
 * only its alerts; every alert has the shape the e2e
 * query test can probe, a severity, and a runbook under docs/runbooks/ with a
 * section named after it; the PrometheusRule of k8s/monitoring holds the same
 * groups.
 */

const groups = ruleGroups();
const alerts = alertingRules(groups);
const records = recordingRules(groups);
const SEVERITIES = ['critical', 'warning'];

interface RuleTestFile {
  rule_files: string[];
  tests: Array<{ name: string; alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }> }>;
}

describe('Prometheus rules', () => {
  describe('the rule unit tests', () => {
    const file = readYaml<RuleTestFile>(RULE_TESTS_FILE);
    const cases = file.tests.flatMap((t) => t.alert_rule_test ?? []);

    it('load the rules file itself', () => {
      expect(file.rule_files.map((f) => join(RULE_TESTS_FILE, '..', f))).toEqual([RULES_FILE]);
    });

    it.each(alerts.map((a) => a.alert))('have a case where %s fires and one where it does not', (name) => {
      const of = cases.filter((c) => c.alertname === name);
      expect([name, of.some((c) => (c.exp_alerts ?? []).length > 0), of.some((c) => (c.exp_alerts ?? []).length === 0)]).toEqual([
        name,
        true,
        true,
      ]);
    });

    it('name no alert the rules do not have', () => {
      expect(cases.map((c) => c.alertname).filter((n) => !alerts.some((a) => a.alert === n))).toEqual([]);
    });
  });

  describe('every alert', () => {
    const recorded = new Set(records.map((r) => r.record));

    it('has a unique name, and the file has recording rules named level:metric:operation', () => {
      expect(new Set(alerts.map((a) => a.alert)).size).toBe(alerts.length);
      expect(alerts.length).toBeGreaterThanOrEqual(12);
      expect(new Set(records.map((r) => r.record)).size).toBe(records.length);
      for (const r of records) expect(r.record).toMatch(/^lead_router:[a-z0-9_]+:[a-z0-9_]+$/);
    });

    it.each(alerts.map((a) => [a.alert, a] as const))(
      '%s: series compared with numbers, each a metric or a recording rule of the file',
      (_name, a) => {
        const comparisons = comparisonsOf(a.expr);
        expect({ expr: a.expr, shaped: comparisons !== undefined }).toEqual({ expr: a.expr, shaped: true });
        for (const c of comparisons!) {
          if (c.metric.includes(':')) expect([c.metric, recorded.has(c.metric)]).toEqual([c.metric, true]);
        }
      },
    );

    it.each(alerts.map((a) => [a.alert, a] as const))(
      '%s: reads recording rules of its own group, recorded before it (the same evaluation’s values)',
      (name, a) => {
        const group = groups.find((g) => g.rules.includes(a))!;
        const before = group.rules.slice(0, group.rules.indexOf(a)).flatMap((r) => ('record' in r ? [r.record] : []));
        const read = (comparisonsOf(a.expr) ?? []).map((c) => c.metric).filter((m) => m.includes(':'));
        expect([name, read.filter((m) => !before.includes(m))]).toEqual([name, []]);
      },
    );

    it.each(alerts.map((a) => [a.alert, a] as const))('%s: a `for`, a severity, a summary and a description', (_name, a) => {
      expect(a.for).toMatch(/^\d+[smh]$/);
      expect(SEVERITIES).toContain(a.labels?.severity);
      expect(a.annotations?.summary?.length).toBeGreaterThan(10);
      expect(a.annotations?.description?.length).toBeGreaterThan(20);
    });

    it.each(alerts.map((a) => [a.alert, a] as const))(
      '%s: a runbook_url to its own section of a runbook under docs/runbooks/',
      (name, a) => {
        const m = /^docs\/runbooks\/([a-z0-9-]+\.md)#([a-z0-9-]+)$/.exec(a.annotations?.runbook_url ?? '');
        expect([a.annotations?.runbook_url, m !== null]).toEqual([a.annotations?.runbook_url, true]);
        const file = join(ROOT, 'docs/runbooks', m![1]);
        expect([file, existsSync(file)]).toEqual([file, true]);
        expect(m![2]).toBe(name.toLowerCase());
        expect([...headingAnchors(readFileSync(file, 'utf8'))]).toContain(m![2]);
      },
    );
  });

  it('compares latencies on a bucket boundary of http_request_duration_seconds, so p99 over the threshold is exact', () => {
    const latency = alerts.flatMap((a) => comparisonsOf(a.expr) ?? []).filter((c) => /_seconds:p\d+_/.test(c.metric));
    expect(latency.length).toBeGreaterThanOrEqual(2);
    for (const c of latency) {
      const rule = records.find((r) => r.record === c.metric)!;
      expect(rule.expr).toContain('http_request_duration_seconds_bucket');
      expect([c.metric, HTTP_SECONDS_BUCKETS.includes(c.threshold)]).toEqual([c.metric, true]);
    }
  });

  it(`${PROMETHEUS_RULE_MANIFEST} holds the same groups (node scripts/sync-prometheus-rule.mjs writes it)`, () => {
    const manifest = readYaml<{ apiVersion: string; kind: string; spec: { groups: unknown } }>(PROMETHEUS_RULE_MANIFEST);
    expect([manifest.apiVersion, manifest.kind]).toEqual(['monitoring.coreos.com/v1', 'PrometheusRule']);
    expect(manifest.spec.groups).toEqual(groups);
  });
});
