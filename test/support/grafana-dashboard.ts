import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The Grafana dashboard of the lead router, as the tests read it. */

const ROOT = resolve(__dirname, '../..');
export const DASHBOARD_FILE = 'deploy/grafana/dashboards/lead-router.json';

export interface Target {
  refId: string;
  expr: string;
  datasource?: { type?: string; uid?: string };
}
export interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
export interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query?: unknown; allValue?: string; includeAll?: boolean }> };
}

export function readDashboard(file = DASHBOARD_FILE): Dashboard {
  return JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Dashboard;
}

/** Every panel, those inside collapsed rows too. */
export function panelsOf(d: Dashboard): Panel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

/** Every query of the dashboard, named by its panel and refId. */
export function expressionsOf(d: Dashboard): Array<{ name: string; expr: string }> {
  return panelsOf(d).flatMap((p) => (p.targets ?? []).map((t) => ({ name: `${p.title} [${t.refId}]`, expr: t.expr })));
}

/** Grafana's own variables a query may use; any other `$name` must be a variable of the dashboard. */
export const GRAFANA_BUILTINS = ['__rate_interval', '__interval', '__range'];

/** The `$name` and `${name}` variables a text names. */
export function variablesIn(text: string): string[] {
  return [...text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
}

/**
 * A query as Grafana would send it: each `$name` / `${name}` replaced by its
 * value. Throws on a variable without a value, so nothing is sent half-done.
 */
export function substitute(expr: string, values: Record<string, string>): string {
  return expr.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_m, braced: string | undefined, bare: string | undefined) => {
      const name = (braced ?? bare)!;
      if (!(name in values)) throw new Error(`no value for the variable $${name} in ${expr}`);
      return values[name];
    },
  );
}
