import { buildTestCatalog } from '../support/catalog-builder';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { person, SubmitClient } from '../support/submit-flow';
import { testEnv, uniqueSuffix } from '../support/test-env';

/**
 * A submit answered PENDING is durable in the broker, but the checks, which
 * decide it and store its lead, may not have taken it yet (stopped here, as
 * after a crash or in a backlog). The svc_lead_id just given out must not
 * read as unknown meanwhile: its status is PENDING, and a direct-post retry
 * naming it is told to retry, not 404. Once the checks are back the lead is
 * decided and reads final.
 */
describe('a PENDING lead that is not stored yet (e2e)', () => {
  const env = testEnv(uniqueSuffix(), { SUBMIT_ANSWER_TIMEOUT_MS: '1500' });
  let ids: ReturnType<typeof buildTestCatalog>['ids'];
  let client: SubmitClient;
  let otherKey: string;
  let checks: RunningApp;

  beforeAll(async () => {
    const sandbox = await startApp('sandbox', env, 'live');
    const built = buildTestCatalog(sandbox.url);
    ids = built.ids;
    applyCatalog(built.catalog, env);
    const key = issueKey(ids.affiliateA, env).key;
    otherKey = issueKey(ids.affiliateB, env).key;
    await startApp('delivery', env);
    // The checks declare their queue, then stop: submits wait in the queue, as in a backlog or after a crash.
    checks = await startApp('checks', env);
    await checks.stop();
    const gateway = await startApp('gateway', env);
    client = new SubmitClient(gateway.url, key, ids.affiliateA);
  });

  afterAll(() => stopAppsAndTopology(env));

  it('reads PENDING (not 404) until it is stored, a retry naming it is retryable, then it reads final', async () => {
    const lead = person();
    const posted = await client.directPost(ids.campaignA, ids.offer, lead, { program_id: 'bsn' });
    expect([posted.status, posted.body.code]).toEqual([202, 'PENDING']);
    const leadId = posted.body.svc_lead_id as string;

    const status = await client.leadStatus(leadId);
    expect(status.status).toBe(200);
    expect(status.body).toEqual(expect.objectContaining({ svc_lead_id: leadId, code: 'PENDING', status: 'pending' }));
    // Another affiliate's key still learns nothing about it.
    expect((await client.leadStatus(leadId, otherKey)).status).toBe(404);

    const retry = await client.directPost(ids.campaignA, ids.offer, lead, { program_id: 'bsn', svc_lead_id: leadId });
    expect(retry.status).toBe(503);
    expect(retry.body).toEqual(
      expect.objectContaining({ code: 'UNAVAILABLE', retryable: true, field: 'svc_lead_id', error: 'lead_pending' }),
    );
    expect(retry.headers.get('retry-after')).toBe('2');

    checks = await startApp('checks', env);
    const final = await client.finalStatus(leadId, 30_000);
    expect(final.body).toEqual(expect.objectContaining({ svc_lead_id: leadId, code: 'ACCEPTED' }));
  });
});
