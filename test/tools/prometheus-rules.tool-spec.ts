import { PROMETHEUS_CONFIG, RULES_FILE, RULE_TESTS_FILE, promtool, promtoolPath } from '../support/prometheus-rules';

/**
 * promtool (Debian's `prometheus` package; .ci/run installs it) checks the
 * alert rules (deploy/prometheus/rules/lead-router.rules.yml), runs their unit
 * tests (deploy/prometheus/tests), which must fire and not fire each alert, and
 * checks the Compose profile's Prometheus configuration. What needs no program
 * is checked in test/unit/prometheus-rules.spec.ts.
 */
describe('Prometheus rules', () => {
  beforeAll(() => {
    promtoolPath(); // a clear message when it is missing, before any promtool run
  });

  describe('promtool', () => {
    it(`checks ${RULES_FILE}`, () => {
      const { status, output } = promtool('check', 'rules', RULES_FILE);
      expect({ status, output }).toEqual({ status: 0, output: expect.stringMatching(/SUCCESS: \d+ rules found/) });
    });

    it(`passes the rule unit tests of ${RULE_TESTS_FILE}`, () => {
      const { status, output } = promtool('test', 'rules', RULE_TESTS_FILE);
      expect({ status, output }).toEqual({ status: 0, output: expect.stringMatching(/SUCCESS/) });
    });

    it(`checks the Compose profile's configuration ${PROMETHEUS_CONFIG} and the rule files it loads`, () => {
      const { status, output } = promtool('check', 'config', PROMETHEUS_CONFIG);
      expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining(RULES_FILE.replace('deploy/prometheus/', '')) });
    });
  });
});
