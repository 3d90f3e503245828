import type { GetMessage } from 'amqplib';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '../../libs/config/src';
import { queuesOf, topologyFor } from '../../libs/messaging/src/topology';
import { queueDepth, sleep, waitFor, withAdminChannel } from '../integration/messaging/support';
import { opsIn } from '../integration/ops/ops-test-support';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { campaign, ownOffer } from '../support/catalog-builder';
import { applyCatalog, issueKey, runOps } from '../support/ops';
import { person, receivedBySchool, SubmitClient } from '../support/submit-flow';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';

/**
 * Dead letters end to end with the real apps: a direct post reaches checks
 * while PostgreSQL refuses its sale (a fault of this test's own offer: a
 * trigger that raises on its sales), so every try fails and the submit is
 * parked in checks' DLQ (the lead stays PENDING). The operator looks (dlq
 * list/show, no contact data), dry-runs, fixes the cause (the trigger is
 * dropped) and replays: the school gets the lead once and the lead is
 * decided. A second replay of the same message changes nothing: the checks'
 * own idempotency (the lead's stored state, keyed by the submit's id) holds.
 */
describe('dead letters: a stuck submit replayed with the operator CLI (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix, { SUBMIT_ANSWER_TIMEOUT_MS: '1000' });
  const checksQueues = queuesOf(topologyFor(loadConfig('checks', env)), 'checks');
  const DLQ = checksQueues.dlq;
  const ids = { aff: randomUUID(), school: randomUUID(), offer: randomUUID(), campaign: randomUUID() };
  const schoolName = `dlq${suffix}-school`;
  let sandbox: RunningApp;
  let checks: RunningApp;
  let client: SubmitClient;
  let db: Client;
  const cli = (...args: string[]) => opsIn(env, args);

  /** Submits checks has finished (acked), from its own /metrics. */
  async function checksAcks(): Promise<number> {
    const text = await (await fetch(`${checks.managementUrl}/metrics`)).text();
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith('messaging_handler_duration_seconds_count{') &&
          l.includes('outcome="ack"') &&
          l.includes('type="submit.requested.v2"'),
      );
    return line ? Number(line.split(' ').pop()) : 0;
  }

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'DLQ affiliate', status: 'active', dupe_check: false }],
        schools: [{ id: ids.school, name: 'DLQ school', logo_url: null }],
        offers: [
          ownOffer(ids.offer, ids.school, 'DLQ offer', {
            adapter: 'sandbox',
            url: `${sandbox.url}/schools/${schoolName}/leads?outcome=accept`,
            timeout_ms: 5000,
          }),
        ],
        campaigns: [campaign(ids.campaign, ids.aff, 'DLQ campaign', [{ offer_id: ids.offer, payout: 12 }])],
      },
      env,
    );
    const key = issueKey(ids.aff, env).key;
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    [checks] = await Promise.all([startApp('checks', env), startApp('delivery', env)]);
    const gateway = await startApp('gateway', env);
    client = new SubmitClient(gateway.url, key, ids.aff);
  });

  afterAll(async () => {
    await fixSales().catch(() => undefined); // left only by a failed run: the trigger touches this test's offer alone
    await stopAppsAndTopology(env);
    await db?.end();
  });

  /** The fault: PostgreSQL refuses every sale of this test's offer (and nothing else), as a broken constraint would. */
  const FAULT = `dlq_fault_${suffix.replace(/[^a-z0-9_]/gi, '_')}`;
  const breakSales = () =>
    db.query(
      `CREATE FUNCTION ${FAULT}() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.offer_id = '${ids.offer}' THEN RAISE EXCEPTION 'sales of this offer refused (test fault)'; END IF; RETURN NEW; END $$;
       CREATE TRIGGER ${FAULT} BEFORE INSERT ON sales FOR EACH ROW EXECUTE FUNCTION ${FAULT}()`,
    );
  const fixSales = () => db.query(`DROP TRIGGER ${FAULT} ON sales; DROP FUNCTION ${FAULT}()`);

  it('parks, shows, replays once, and a second replay has no effect', async () => {
    // The cause: PostgreSQL refuses the sale, so the checks' every try fails.
    await breakSales();
    const lead = person();
    const post = await client.directPost(ids.campaign, ids.offer, lead, { program_id: 'gen' });
    expect([post.status, post.body.code]).toEqual([202, 'PENDING']);
    const leadId: string = post.body.svc_lead_id;
    const messageId = `submit:${leadId}`;
    await waitFor(async () => (await queueDepth(DLQ)) === 1, 40_000, 'the submit in the DLQ');
    expect((await client.leadStatus(leadId)).body.code).toBe('PENDING');

    // Look: depth 1, the message with its reason, never the lead's data.
    const list = JSON.parse((await cli('dlq', 'list', '--json')).stdout);
    expect(list.find((r: { queue: string }) => r.queue === DLQ)).toMatchObject({ messages: 1, consumers: 0 });
    const show = await cli('dlq', 'show', DLQ);
    expect(show.code).toBe(0);
    const json = JSON.parse((await cli('dlq', 'show', DLQ, '--json')).stdout);
    expect(json.messages).toEqual([
      expect.objectContaining({
        message_id: messageId,
        type: 'submit.requested.v2',
        attempts: 3,
        original_queue: checksQueues.queue,
        original_routing_key: 'submit.requested.v2',
        reason: expect.stringMatching(/sales of this offer refused \(test fault\)/),
      }),
    ]);
    expect(show.stdout).toContain(messageId);
    for (const raw of [lead.personal.email, lead.personal.phone, lead.personal.last_name]) {
      expect(show.stdout).not.toContain(raw);
      expect(JSON.stringify(json)).not.toContain(raw);
    }
    // The copy a repeated replay would send, kept aside (read and given back).
    const saved: GetMessage | undefined = await withAdminChannel(async (ch) => (await ch.get(DLQ, { noAck: false })) || undefined);
    expect(saved?.properties.messageId).toBe(messageId);

    // A dry run changes nothing.
    const dry = await cli('dlq', 'replay', DLQ, '--dry-run');
    expect(dry.stdout).toContain('dry run: would replay 1 message');
    await sleep(500);
    expect(await queueDepth(DLQ)).toBe(1);
    expect((await receivedBySchool(sandbox.url, schoolName)).get(leadId)).toBeUndefined();
    expect((await client.leadStatus(leadId)).body.code).toBe('PENDING');

    // The worker's gauge shows the parked message (it reads every 15 s).
    const gauge = new RegExp(`^messaging_dlq_depth\\{[^}]*queue="${DLQ.replace(/\./g, '\\.')}"[^}]*\\} 1$`, 'm');
    await waitFor(
      async () => gauge.test(await (await fetch(`${checks.managementUrl}/metrics`)).text()),
      20_000,
      'messaging_dlq_depth 1 on checks',
    );

    // The cause fixed. The real CLI process replays.
    await fixSales();
    const replay = runOps(['dlq', 'replay', DLQ], env);
    expect(replay.stderr).toBe('');
    expect([replay.code, replay.stdout.trim()]).toEqual([
      0,
      `replayed 1 message from ${DLQ} to ${checksQueues.queue} (read 1 of 1; 0 of the 1 still in the DLQ)`,
    ]);
    const final = await client.finalStatus(leadId, 20_000);
    expect(final.body).toEqual(expect.objectContaining({ code: 'ACCEPTED', status: 'accepted', payout: 12 }));
    expect((await receivedBySchool(sandbox.url, schoolName)).get(leadId)).toBe(1);
    expect(await queueDepth(DLQ)).toBe(0);
    const effects = async () => ({
      lead: (await db.query('SELECT status, decided_at FROM leads WHERE id = $1', [leadId])).rows,
      attempts: (await db.query('SELECT count(*)::int AS n FROM delivery_attempts WHERE lead_id = $1', [leadId])).rows[0].n,
      sales: (await db.query('SELECT status, payout FROM sales WHERE lead_id = $1', [leadId])).rows,
    });
    const once = await effects();
    expect(once).toEqual({
      lead: [{ status: 'accepted', decided_at: expect.any(Date) }],
      attempts: 1,
      sales: [{ status: 'accepted', payout: '12.00' }],
    });

    // The same message replayed again (its copy put back in the DLQ): handled, and no second effect.
    const acks = await checksAcks();
    await withAdminChannel(async (ch) => {
      ch.publish('', DLQ, saved!.content, { ...saved!.properties, persistent: true });
      await sleep(50);
    });
    await waitFor(async () => (await queueDepth(DLQ)) === 1, 5000, 'the copy in the DLQ');
    const again = await cli('dlq', 'replay', DLQ, '--id', messageId);
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining('replayed 1 message')]);
    await waitFor(async () => (await checksAcks()) > acks, 15_000, 'checks to handle the second replay');
    expect(await effects()).toEqual(once);
    expect((await receivedBySchool(sandbox.url, schoolName)).get(leadId)).toBe(1);
    expect(JSON.parse(runOps(['dlq', 'list', '--json'], env).stdout).find((r: { queue: string }) => r.queue === DLQ).messages).toBe(0);
  }, 150_000);
});
