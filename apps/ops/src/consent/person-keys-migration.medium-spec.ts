import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  CONSENT_RECORD_FORM_1,
  ConsentRecord,
  GENESIS,
  hashOf,
  keyedPersonKey,
  type Lead,
  leadDedupeKeys,
  linkRecords,
  optOutKeysOf,
} from '@lr/domain';
import { allMigrations, ConsentLedger, dataSourceOptions, ensureDatabase, MIGRATIONS } from '@lr/persistence';
import { MEDIUM_DATABASE_URL } from '../../../../test/support/medium-env';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';
import { dropDatabase, ownDatabaseUrl } from '../../../../test/support/test-database';
import { buildBundle, writeBundle } from './export-bundle';
import { verifyBundle } from './verify-bundle';
import { verifyChain } from './verify-chain';

/**
 * Migration KeyedPersonKeys on a database that holds what the release before
 * it stored: plain SHA-256 person keys in every table, and a consent chain
 * whose first record was chained (and sealed) with the plain hashes.
 */
const URL = ownDatabaseUrl(MEDIUM_DATABASE_URL, '_keyed');
const SECRET = TEST_PERSON_KEY_SECRET;
const PERSON: Lead = {
  personal: { email: 'Ada.Lovelace@example.com', phone: '(512) 555-0147', last_name: 'Lovelace', date_of_birth: '1990-07-04' },
  address: { zip_code: '90210' },
};
const EMAIL_SHA = hashOf('email', PERSON.personal!.email!)!;
const PHONE_SHA = hashOf('phone', PERSON.personal!.phone!)!;
const ids = { chained: randomUUID(), unchained: randomUUID(), optOut: randomUUID(), search: randomUUID() };
const ZERO = '00000000-0000-4000-8000-000000000000';
/** The plain keys the release before stored: leadDedupeKeys as it was, the SHA-256 of the name key unkeyed. */
const plainKeys = leadDedupeKeys(SECRET, PERSON).map((k) => ({
  type: k.type,
  plain: k.type === 'email' ? EMAIL_SHA : k.type === 'phone' ? PHONE_SHA : undefined,
  keyed: k.hash,
}));

async function migrate(migrations: ReturnType<typeof allMigrations>): Promise<void> {
  const ds = new DataSource({ ...dataSourceOptions({ url: URL, poolSize: 1, timeoutMs: 10_000 }), migrations });
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
  } finally {
    await ds.destroy();
  }
}

function evidenceRecord(leadId: string, position: number): ConsentRecord {
  return {
    form: CONSENT_RECORD_FORM_1,
    position,
    lead_id: leadId,
    kind: 'direct_post',
    search_id: null,
    affiliate_id: ZERO,
    campaign_id: ZERO,
    offer_id: ZERO,
    school_id: ZERO,
    program_id: null,
    tcpa_consent: true,
    statement: 'I agree to be called.',
    button_label: 'Request info',
    ip: '73.12.44.10',
    ip_source: 'consumer',
    consented_at: '2026-11-20T15:04:05.123Z',
    form_cert_url: null,
    universal_lead_cert: null,
    email_sha256: EMAIL_SHA,
    phone_sha256: PHONE_SHA,
  };
}

/** What the release before stored, written as it wrote it (foreign keys off: only the person keys matter here). */
async function seedPlain(db: Client): Promise<void> {
  await db.query(`SET session_replication_role = replica`);
  for (const id of [ids.chained, ids.unchained]) {
    await db.query(
      `INSERT INTO leads (id, kind, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, lead_group_id)
       VALUES ($1, 'direct_post', $2, $2, $2, $2, $3, '73.12.44.10', 'accepted', $1)`,
      [id, ZERO, PERSON],
    );
    await db.query(
      `INSERT INTO consent_evidence (lead_id, tcpa_consent, tcpa_text, button_label, ip, consented_at) VALUES ($1, true, 'I agree to be called.', 'Request info', '73.12.44.10', '2026-11-20T15:04:05.123Z')`,
      [id],
    );
    await db.query(`INSERT INTO consent_ledger (lead_id, school_id, email_sha256, phone_sha256) VALUES ($1, $2, $3, $4)`, [
      id,
      ZERO,
      EMAIL_SHA,
      PHONE_SHA,
    ]);
  }
  const [link] = linkRecords(null, [{ seq: 1 }], (_r, position) => evidenceRecord(ids.chained, position));
  expect(link.prevDigest).toBe(GENESIS);
  await db.query(
    `UPDATE consent_ledger SET position = 1, record_hash = $2, prev_digest = $3, digest = $4, chained_at = now() - interval '2 days' WHERE lead_id = $1`,
    [ids.chained, link.recordHash, link.prevDigest, link.digest],
  );
  await db.query(`INSERT INTO consent_seals (day, count, head_digest) VALUES ((now() - interval '1 day')::date, 1, $1)`, [link.digest]);
  for (const k of plainKeys.filter((k) => k.plain))
    await db.query(
      `INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at) VALUES ($1, $2, $3, $4, $4, $4, now())`,
      [ids.chained, k.type, k.plain, ZERO],
    );
  await db.query(
    `INSERT INTO opt_outs (id, received_at, due_at, source, relay, email_sha256, phone_sha256) VALUES ($1, now(), now(), 'operator', 'lr', $2, NULL)`,
    [ids.optOut, EMAIL_SHA],
  );
  await db.query(`INSERT INTO suppressions (key_type, key_hash, opt_out_id) VALUES ('email', $1, $2)`, [EMAIL_SHA, ids.optOut]);
  await db.query(
    `INSERT INTO suppression_audit (action, key_type, key_hash, opt_out_id, actor) VALUES ('suppress', 'email', $1, $2, 'test')`,
    [EMAIL_SHA, ids.optOut],
  );
  await db.query(
    `INSERT INTO searches (id, part_day, affiliate_id, campaign_id, api_key_id, lead, consumer_ip, ip_source, closes_at, person_keys)
     VALUES ($1, lr_id_day($1), $2, $2, $2, $3, '73.12.44.10', 'consumer', now(), $4::jsonb)`,
    [
      ids.search,
      ZERO,
      PERSON,
      JSON.stringify([
        { type: 'email', hash: EMAIL_SHA },
        { type: 'phone', hash: PHONE_SHA },
      ]),
    ],
  );
}

describe('migration KeyedPersonKeys', () => {
  let db: Client;

  beforeAll(async () => {
    await dropDatabase(URL, 'medium');
    await ensureDatabase(URL);
    await migrate(MIGRATIONS);
    db = new Client({ connectionString: URL });
    await db.connect();
    await seedPlain(db);
    await migrate(allMigrations(SECRET));
  });

  afterAll(async () => {
    await db?.end();
    await dropDatabase(URL, 'medium');
  });

  const keyed = (type: 'email' | 'phone') => optOutKeysOf(SECRET, PERSON.personal!).find((k) => k.type === type)!.hash;

  it("turns every stored plain key into HMAC(secret, sha256): the keys libs/domain makes of the raw lead and of the contract's hashes", async () => {
    expect(keyed('email')).toBe(keyedPersonKey(SECRET, EMAIL_SHA));
    const dedupe = await db.query(`SELECT key_type, key_hash FROM dedupe_keys WHERE lead_id = $1 ORDER BY key_type`, [ids.chained]);
    expect(dedupe.rows).toEqual([
      { key_type: 'email', key_hash: keyed('email') },
      { key_type: 'phone', key_hash: keyed('phone') },
    ]);
    expect((await db.query(`SELECT key_hash FROM suppressions`)).rows).toEqual([{ key_hash: keyed('email') }]);
    expect((await db.query(`SELECT key_hash FROM suppression_audit`)).rows).toEqual([{ key_hash: keyed('email') }]);
    expect((await db.query(`SELECT email_key, phone_key FROM opt_outs`)).rows).toEqual([{ email_key: keyed('email'), phone_key: null }]);
    const [search] = (await db.query(`SELECT person_keys FROM searches WHERE id = $1`, [ids.search])).rows;
    expect(search.person_keys).toEqual(
      leadDedupeKeys(SECRET, { personal: { email: PERSON.personal!.email, phone: PERSON.personal!.phone } }),
    );
  });

  it('keeps the chained record in form 1 with the plain hashes it was chained with; a row not chained yet becomes form 2', async () => {
    const rows = (
      await db.query(
        `SELECT lead_id, record_form, form1_email_sha256, form1_phone_sha256, email_key, phone_key FROM consent_ledger ORDER BY seq`,
      )
    ).rows;
    expect(rows).toEqual([
      {
        lead_id: ids.chained,
        record_form: 1,
        form1_email_sha256: EMAIL_SHA,
        form1_phone_sha256: PHONE_SHA,
        email_key: keyed('email'),
        phone_key: keyed('phone'),
      },
      {
        lead_id: ids.unchained,
        record_form: 2,
        form1_email_sha256: null,
        form1_phone_sha256: null,
        email_key: keyed('email'),
        phone_key: keyed('phone'),
      },
    ]);
  });

  it('leaves a chain that `consent verify` passes, form-1 and form-2 records alike, and a bundle by email that verifies offline', async () => {
    const ds = new DataSource(dataSourceOptions({ url: URL, poolSize: 2 }));
    await ds.initialize();
    const dir = mkdtempSync(join(tmpdir(), 'keyed-bundle-'));
    try {
      const ledger = new ConsentLedger(ds);
      expect(await verifyChain(ledger, { from: null, to: null })).toMatchObject({ break: null, checked: 1, sealsChecked: 1 });
      await ledger.chain((head, pending) => linkRecords(head, pending, (p, position) => p.record(position)), { sealDay: () => null });
      expect(await verifyChain(ledger, { from: null, to: null })).toMatchObject({ break: null, checked: 2, unchained: 0 });

      const { bundle, lines } = await buildBundle(ledger, { by: 'email', value: ' ada.lovelace@EXAMPLE.com' }, SECRET, new Date());
      expect(bundle.events.map((e) => e.record.form)).toEqual(['lead-router/consent-record/1', 'lead-router/consent-record/2']);
      expect(bundle.events[1].record).toMatchObject({ email_key: keyed('email'), phone_key: keyed('phone') });
      await writeBundle(join(dir, 'bundle'), bundle, lines);
      expect(await verifyBundle(join(dir, 'bundle'))).toMatchObject({ ok: true, problem: null, events: 2 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await ds.destroy();
    }
  });
});
