import { AppName } from '../../libs/config/src';
import { call } from '../support/http';
import { startApp, stopAppsAndTopology } from '../support/app-process';
import { testEnv, uniqueSuffix } from '../support/test-env';

/** Every app: /health/live, /health/ready, Prometheus /metrics, JSON logs, graceful exit (code 0) on SIGTERM. */
describe('every app (e2e)', () => {
  const env = testEnv(uniqueSuffix(), { LOG_LEVEL: 'info' });
  afterAll(() => stopAppsAndTopology(env));

  const apps: AppName[] = ['sandbox', 'search-orchestrator', 'partner-adapter', 'checks', 'delivery', 'gateway'];

  it.each(apps)('%s: health, metrics, JSON logs, SIGTERM', async (name) => {
    const app = await startApp(name, env);
    const live = await call(app.url, 'GET', '/health/live');
    expect([live.status, live.body.status]).toEqual([200, 'ok']);
    const ready = await call(app.url, 'GET', '/health/ready');
    expect([ready.status, ready.body.status]).toEqual([200, 'ok']);
    if (name !== 'sandbox') {
      expect(Object.keys(ready.body.checks)).toEqual(expect.arrayContaining(['postgres', 'rabbitmq']));
    }
    const metrics = await call(app.url, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('process_cpu_user_seconds_total');
    expect(metrics.text).toContain(`app="${name}"`);

    const started = Date.now();
    const code = await app.stop(15_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect([code, app.child.signalCode]).toEqual([0, null]); // drained and exited on its own
    const lines = app
      .output()
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(entry).toEqual(expect.objectContaining({ level: expect.anything(), time: expect.any(String) }));
    }
  });

  it('the gateway logs a request id and never the lead’s contact data', async () => {
    const gateway = await startApp('gateway', env);
    const canary = { email: 'canary.7f3a@example.com', phone: '5125557788', first_name: 'Zebulon', last_name: 'Quillfeather' };
    const res = await call(gateway.url, 'POST', '/api/v1/engine/search', {
      key: 'lr_unknown',
      body: { lead: { personal: canary } },
      headers: { 'X-Request-Id': 'req-canary-000001' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toBe('req-canary-000001');
    await gateway.stop();
    const out = gateway.output();
    expect(out).toContain('req-canary-000001');
    for (const value of Object.values(canary)) expect(out).not.toContain(value);
  });
});
