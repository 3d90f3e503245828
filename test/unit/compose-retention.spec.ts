import { loadConfig } from '@lr/config';
import { MESSAGE_RETENTION, SEARCH_RETENTION } from '@lr/domain';
import { compose, interpolate, rawRetentionLoop as raw, retentionService as service } from '../support/compose-retention';

/**
 * The Compose service `retention` of docker-compose.yml, offline (no Docker):
 * it runs the one image as the ops CLI with every app's settings, after the
 * migration, and its shell loop, written for Compose, leaves Compose nothing to
 * interpolate. The loop itself runs under /bin/sh in
 * test/tools/compose-retention.tool-spec.ts.
 */

const environment = (host: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries<string | number>(service.environment).map(([k, v]) => [k, interpolate(String(v), host)]));

describe('docker-compose.yml, service retention', () => {
  it('runs the one image as the ops CLI, long-running, with a plain `docker compose up` (no profile)', () => {
    expect(service).toMatchObject({ image: '${LEAD_ROUTER_IMAGE:-lead-router:local}', pull_policy: 'never', restart: 'unless-stopped' });
    expect(service.build).toBeUndefined();
    expect(service.profiles).toBeUndefined();
    expect(service.environment.APP).toBe('ops');
  });

  it('starts after the migration, on healthy infrastructure', () => {
    expect(service.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      rabbitmq: { condition: 'service_healthy' },
      migrate: { condition: 'service_completed_successfully' },
    });
  });

  it('gets every app setting the migration gets, and libs/config accepts them; the windows from the host, else the defaults', () => {
    const migrate = Object.fromEntries(
      Object.entries<string>(compose.services.migrate.environment).map(([k, v]) => [k, interpolate(String(v))]),
    );
    expect(environment()).toEqual({ ...migrate, RETENTION_SEARCH_DAYS: '', RETENTION_MESSAGE_DAYS: '' });
    expect(loadConfig('ops', environment()).retention).toEqual({
      searchDays: SEARCH_RETENTION.defaultDays,
      messageDays: MESSAGE_RETENTION.defaultDays,
    });
    expect(loadConfig('ops', environment({ RETENTION_SEARCH_DAYS: '7', RETENTION_MESSAGE_DAYS: '3' })).retention).toEqual({
      searchDays: 7,
      messageDays: 3,
    });
  });

  it('leaves no `$` for Compose to interpolate in the loop (every shell `$` is written `$$`)', () => {
    expect(raw.replace(/\$\$/g, '')).not.toContain('$');
  });
});
