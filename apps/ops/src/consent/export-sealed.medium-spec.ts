import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { chainConsentLedger } from '@lr/jobs';
import { ConsentLedger, SealedContacts } from '@lr/persistence';
import { keyStoreSealer, mediumDataSource, soldLead, submitWorld } from '../../../../test/support/medium-world';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';
import { sealStored } from '../../../../test/support/sealed-rows';
import { buildBundle, sealedPersonalOf, writeBundle } from './export-bundle';
import { verifyBundle } from './verify-bundle';

/**
 * `consent export` of a lead stored sealed: the bundle shows its contact data
 * opened from the sealed part; once its data key is destroyed (a deletion),
 * the bundle says the contact data was erased and the consent evidence is
 * exported and verifies as before.
 */
describe('consent export of a sealed lead', () => {
  let ds: DataSource;
  const sealer = keyStoreSealer();
  const dir = mkdtempSync(join(tmpdir(), 'sealed-bundle-'));

  beforeAll(async () => {
    ds = await mediumDataSource(2);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await ds.destroy();
  });

  it('opens the contact data while its key lives, and says it was erased once the key is destroyed', async () => {
    const world = await submitWorld(ds, [{}]);
    const leadId = await soldLead(world, world.offerIds[0]);
    const { sealed, clear } = await sealStored(ds, sealer, 'leads', leadId);
    const ledger = new ConsentLedger(ds);
    await chainConsentLedger(ledger);
    const opened = sealedPersonalOf(new SealedContacts(ds), sealer);
    const export_ = () => buildBundle(ledger, { by: 'lead', value: leadId }, TEST_PERSON_KEY_SECRET, new Date(), opened);

    const before = await export_();
    expect(before.bundle.events.map((e) => e.lead_id)).toEqual([leadId]);
    expect(before.bundle.events[0].context.contact).toEqual({
      first_name: clear.lead.personal!.first_name,
      last_name: clear.lead.personal!.last_name,
      email: clear.lead.personal!.email,
      phone: clear.lead.personal!.phone,
    });

    await sealer.destroy([sealed.key]);
    const after = await export_();
    expect(after.bundle.events[0].context.contact).toBeNull();
    expect(after.bundle.events[0].record).toEqual(before.bundle.events[0].record);
    await writeBundle(join(dir, 'after'), after.bundle, after.lines);
    const html = readFileSync(join(dir, 'after', 'index.html'), 'utf8');
    expect(html).toContain('erased');
    expect(html).not.toContain(clear.lead.personal!.email!);
    expect(await verifyBundle(join(dir, 'after'))).toMatchObject({ ok: true, problem: null, events: 1 });
  });
});
