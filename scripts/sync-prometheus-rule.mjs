// Writes k8s/monitoring/prometheus-rule.yaml, the PrometheusRule of the
// Prometheus Operator, from deploy/prometheus/rules/lead-router.rules.yml (the
// one file where the rules are edited), so both hold the same groups:
//   node scripts/sync-prometheus-rule.mjs
// test/unit/prometheus-rules.spec.ts fails while they differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = 'deploy/prometheus/rules/lead-router.rules.yml';
const TARGET = 'k8s/monitoring/prometheus-rule.yaml';

const { groups } = parse(readFileSync(join(ROOT, SOURCE), 'utf8'));
const rule = {
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'PrometheusRule',
  metadata: { name: 'lead-router', labels: { 'app.kubernetes.io/part-of': 'lead-router' } },
  spec: { groups },
};
const header = [
  `# Written by scripts/sync-prometheus-rule.mjs from ${SOURCE}:`,
  '# edit that file, then run the script. The alerts, their thresholds and',
  '# runbooks are described in docs/observability.md ("Alerts").',
];
writeFileSync(join(ROOT, TARGET), `${header.join('\n')}\n${stringify(rule, { lineWidth: 0 })}`);
process.stdout.write(`wrote ${TARGET} (${groups.length} groups, ${groups.reduce((n, g) => n + g.rules.length, 0)} rules)\n`);
