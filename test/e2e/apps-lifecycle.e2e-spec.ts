import { AppName } from '../../libs/config/src';
import { call } from '../support/http';
import { startApp, stopAppsAndTopology } from '../support/app-process';
import { testEnv, uniqueSuffix } from '../support/test-env';

/**
 * Every app: /health/live, /health/ready, Prometheus /metrics on its management port (and, for the apps
 * that serve an API, not on the API port), JSON logs, graceful exit (code 0) on SIGTERM.
 */
describe('every app (e2e)', () => {
  const env = testEnv(uniqueSuffix(), { LOG_LEVEL: 'info' });
  afterAll(() => stopAppsAndTopology(env));

  const apps: AppName[] = ['sandbox', 'search-orchestrator', 'partner-adapter', 'checks', 'delivery', 'gateway'];

  it.each(apps)('%s: health, metrics, JSON logs, SIGTERM', async (name) => {
    const app = await startApp(name, env);
    const live = await call(app.managementUrl, 'GET', '/health/live');
    expect([live.status, live.body.status]).toEqual([200, 'ok']);
    const ready = await call(app.managementUrl, 'GET', '/health/ready');
    expect([ready.status, ready.body.status]).toEqual([200, 'ok']);
    if (name !== 'sandbox') {
      expect(Object.keys(ready.body.checks)).toEqual(expect.arrayContaining(['postgres', 'rabbitmq']));
    }
    const metrics = await call(app.managementUrl, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('process_cpu_user_seconds_total');
    expect(metrics.text).toContain(`app="${name}"`);
    if (name === 'gateway' || name === 'sandbox') {
      expect(app.managementUrl).not.toBe(app.url);
      for (const path of ['/health/live', '/health/ready', '/metrics'])
        expect([path, (await call(app.url, 'GET', path)).status]).toEqual([path, 404]);
    }

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

  it('the gateway logs its own request id with the caller’s beside it, and never the lead’s contact data', async () => {
    const gateway = await startApp('gateway', env);
    const canary = { email: 'canary.7f3a@example.com', phone: '5125557788', first_name: 'Zebulon', last_name: 'Quillfeather' };
    const res = await call(gateway.url, 'POST', '/api/v1/engine/search', {
      key: 'lr_unknown',
      body: { lead: { personal: canary } },
      headers: { 'X-Request-Id': 'req-canary-000001' },
    });
    expect(res.status).toBe(401);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await gateway.stop();
    const out = gateway.output();
    const line = out
      .split('\n')
      .filter((l) => l.includes('"request completed"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.correlation_id === requestId);
    expect(line).toEqual(expect.objectContaining({ correlation_id: requestId, client_request_id: 'req-canary-000001' }));
    for (const value of Object.values(canary)) expect(out).not.toContain(value);
  });
});
