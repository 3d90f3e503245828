import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { keyStoreUrl } from '@lr/config';
import { leadOptOutKeys } from '@lr/domain';
import {
  createDataSource,
  LeadStoryRepository,
  migrateDatabase,
  OptOuts,
  PartitionStore,
  PersonErasure,
  SealedContacts,
} from '@lr/persistence';
import {
  decideSubmit,
  freshPerson,
  keyStoreSealer,
  MEDIUM_DATABASE_URL,
  resultSubmit,
  storeSearch,
  submitWorld,
} from '../../../../test/support/medium-world';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';
import { sealStored } from '../../../../test/support/sealed-rows';
import { dropDatabase, ownDatabaseUrl } from '../../../../test/support/test-database';
import { ERASED_CONTACT, revealContact, revealLines } from '../leads/reveal-contact';
import { deletePerson } from './delete-person';

/**
 * A deletion reaches the backups of the main database (docs/deletion.md): a
 * dump taken before `person delete` holds the person's lead (its readable
 * part and its sealed document) but not their email or phone; restored after
 * the deletion, beside the same key store, the lead's contact data does not
 * open: its data key was destroyed. pg_dump and psql of this machine; the
 * databases are the test's own and dropped after it.
 */
const source = ownDatabaseUrl(MEDIUM_DATABASE_URL, '_restore_src');
const restored = ownDatabaseUrl(MEDIUM_DATABASE_URL, '_restore_copy');
const dir = mkdtempSync(join(tmpdir(), 'lr-restore-'));
const dumpFile = join(dir, 'main.sql');

/** libpq's connection arguments of a postgres:// URL, for pg_dump and psql. */
function pgArgs(url: string): string[] {
  const u = new URL(url);
  return ['-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username), '-d', u.pathname.slice(1)];
}

const pgEnv = (url: string) => ({ ...process.env, PGPASSWORD: decodeURIComponent(new URL(url).password) });

describe('person delete and a backup restored after it', () => {
  let ds: DataSource;
  let copy: DataSource | undefined;
  const sealer = keyStoreSealer(source);

  beforeAll(async () => {
    for (const url of [source, keyStoreUrl(source, undefined), restored]) await dropDatabase(url, 'medium');
    await migrateDatabase(source, TEST_PERSON_KEY_SECRET);
    ds = createDataSource({ url: source, poolSize: 2, timeoutMs: 10_000 });
    await ds.initialize();
  });
  afterAll(async () => {
    await copy?.destroy();
    await ds?.destroy();
    for (const url of [source, keyStoreUrl(source, undefined), restored]) await dropDatabase(url, 'medium');
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the restored lead unreadable, and the dump never held the contact data in the clear', async () => {
    const world = await submitWorld(ds, [{}]);
    const person = freshPerson();
    const search = await storeSearch(world, person);
    const msg = resultSubmit(world, search, world.offerIds[0]);
    const outcome = await decideSubmit(ds).run(msg);
    if (!('deliver' in outcome)) throw new Error('the submit was not reserved');
    await sealStored(ds, sealer, 'searches', search.searchId);
    const { sealed } = await sealStored(ds, sealer, 'leads', msg.leadId);
    expect(await sealer.tryOpenAll([sealed])).not.toEqual([null]);

    // The backup, before the deletion.
    execFileSync('pg_dump', [...pgArgs(source), '--no-owner', '-f', dumpFile], { env: pgEnv(source), stdio: 'pipe' });
    const dump = readFileSync(dumpFile, 'utf8');
    expect(dump).toContain(msg.leadId);
    expect(dump).toContain(sealed.data);
    expect(dump).toContain(person.address!.state!);
    expect(dump).not.toContain(person.personal!.email!);
    expect(dump).not.toContain(person.personal!.phone!);

    const report = await deletePerson(
      {
        erasure: new PersonErasure(ds),
        sealed: new SealedContacts(ds),
        keys: sealer,
        partitions: new PartitionStore(ds),
        optOuts: new OptOuts(ds),
        states: { forget: () => Promise.resolve(0) },
      },
      {
        keys: leadOptOutKeys(TEST_PERSON_KEY_SECRET, person),
        typed: { emails: [], phones: [] },
        reference: 'TICKET-RESTORE',
        dryRun: false,
        now: new Date(),
        relay: 'medium',
        secret: TEST_PERSON_KEY_SECRET,
      },
    );
    expect(report.cryptoShredded).toEqual({ searches: 1, leads: 1, deadLetters: 0 });

    // The backup restored into a fresh database, beside the same key store.
    const admin = new URL(restored);
    admin.pathname = '/postgres';
    execFileSync(
      'psql',
      [...pgArgs(admin.toString()), '-v', 'ON_ERROR_STOP=1', '-c', `CREATE DATABASE ${new URL(restored).pathname.slice(1)}`],
      {
        env: pgEnv(restored),
        stdio: 'pipe',
      },
    );
    execFileSync('psql', [...pgArgs(restored), '-q', '-v', 'ON_ERROR_STOP=1', '-f', dumpFile], { env: pgEnv(restored), stdio: 'pipe' });
    copy = createDataSource({ url: restored, poolSize: 2, timeoutMs: 10_000 });
    await copy.initialize();

    const held = await new SealedContacts(copy).ofLeads([msg.leadId]);
    expect(held).toEqual([{ id: msg.leadId, contact: sealed }]);
    const rows = await new LeadStoryRepository(copy).read(msg.leadId);
    expect(rows!.submits.find((s) => s.id === msg.leadId)!.lead.address?.state).toBe(person.address!.state);

    const shown = await revealContact({ contacts: new SealedContacts(copy), opener: sealer }, rows!, {
      id: msg.leadId,
      operator: 'ops-test',
      reason: 'restore drill',
    });
    expect(shown.contact).toEqual({ of: 'lead', id: msg.leadId, stored: 'erased' });
    expect(revealLines(shown).join('\n')).toContain(ERASED_CONTACT);
  });
});
