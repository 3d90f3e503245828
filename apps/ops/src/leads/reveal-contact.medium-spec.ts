import type { DataSource } from 'typeorm';
import { LeadStoryRepository, SealedContacts } from '@lr/persistence';
import { keyStoreSealer, mediumDataSource, soldLead, submitWorld, SubmitWorld } from '../../../../test/support/medium-world';
import { sealStored, unsealStored } from '../../../../test/support/sealed-rows';
import { loadLeadStory } from './lead-story';
import { ERASED_CONTACT, revealContact, revealLines } from './reveal-contact';

/**
 * `ops lead show --reveal`: a lead stored sealed is opened and shown with its
 * contact data, each reveal recorded first; once its data key is destroyed
 * the lead shows as erased; a lead stored before sealing shows its clear
 * columns; `lead show` without --reveal opens and records nothing.
 */
describe('lead show --reveal', () => {
  let ds: DataSource;
  let world: SubmitWorld;
  const sealer = keyStoreSealer();

  beforeAll(async () => {
    ds = await mediumDataSource(2);
    world = await submitWorld(ds, [{}]);
  });
  afterAll(() => ds.destroy());

  const reveal = async (id: string, reason: string | null) => {
    const rows = await new LeadStoryRepository(ds).read(id);
    if (!rows) throw new Error(`no lead ${id}`);
    return revealContact({ contacts: new SealedContacts(ds), opener: sealer }, rows, { id, operator: 'ops-test', reason });
  };

  it('opens a sealed lead, records the reveal, and shows the lead as erased once its key is destroyed', async () => {
    const leadId = await soldLead(world, world.offerIds[0]);
    const { sealed, clear } = await sealStored(ds, sealer, 'leads', leadId);
    const email = clear.lead.personal!.email!;

    // Without --reveal nothing is opened or recorded, and the stored row holds no email.
    const story = await loadLeadStory(ds, leadId);
    expect(JSON.stringify(story)).not.toContain(email);
    expect(await new SealedContacts(ds).reveals(leadId)).toEqual([]);

    const first = await reveal(leadId, 'TICKET-1');
    expect(first.contact).toMatchObject({ of: 'lead', id: leadId, stored: 'sealed', consumer_ip: clear.consumerIp });
    expect(first.contact.stored === 'sealed' && first.contact.lead).toEqual(clear.lead);
    expect(revealLines(first).join('\n')).toContain(email);
    const audit = await new SealedContacts(ds).reveals(leadId);
    expect(audit).toEqual([expect.objectContaining({ leadId, operator: 'ops-test', reason: 'TICKET-1' })]);

    expect(await sealer.destroy([sealed.key])).toBe(1);
    const second = await reveal(leadId, null);
    expect(second.contact).toEqual({ of: 'lead', id: leadId, stored: 'erased' });
    const text = revealLines(second).join('\n');
    expect(text).toContain(ERASED_CONTACT);
    expect(text).not.toContain(email);
    expect((await new SealedContacts(ds).reveals(leadId)).map((r) => r.reason)).toEqual(['TICKET-1', null]);
  });

  it('shows the clear columns of a lead stored before sealing, and records that reveal too', async () => {
    const leadId = await soldLead(world, world.offerIds[0]);
    await unsealStored(ds, sealer, 'leads', leadId);
    const shown = await reveal(leadId, 'TICKET-2');
    expect(shown.contact).toMatchObject({ stored: 'clear' });
    expect(shown.contact.stored === 'clear' && shown.contact.lead.personal?.email).toMatch(/@/);
    expect(await new SealedContacts(ds).reveals(leadId)).toHaveLength(1);
  });

  it('reveals a sealed search by its id', async () => {
    const leadId = await soldLead(world, world.offerIds[0]);
    const rows = await new LeadStoryRepository(ds).read(leadId);
    const searchId = rows!.search!.id;
    const { clear } = await sealStored(ds, sealer, 'searches', searchId);
    const shown = await reveal(searchId, 'TICKET-3');
    expect(shown.contact).toMatchObject({ of: 'search', stored: 'sealed', lead: clear.lead, tracking: clear.tracking });
  });
});
