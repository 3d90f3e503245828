import type { DataSource } from 'typeorm';
import { type ContactPart, leadOptOutKeys, type Lead, type SealedContact } from '@lr/domain';
import { OptOuts, PartitionStore, PersonErasure, SealedContacts } from '@lr/persistence';
import {
  decideSubmit,
  freshPerson,
  keyStoreSealer,
  mediumDataSource,
  resultSubmit,
  storeSearch,
  submitWorld,
  SubmitWorld,
} from '../../../../test/support/medium-world';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';
import { contactColumnsOfRows, sealedOf, sealStored } from '../../../../test/support/sealed-rows';
import { deletePerson, DeletionReport } from './delete-person';

/**
 * `ops person delete` with records stored sealed (docs/deletion.md): the
 * person's sealed search, sealed test search (no person keys) and sealed
 * lead are found, erased and their data keys destroyed, so no copy of their
 * contact data opens any more; a search of theirs stored before sealing is
 * erased as before; another person's sealed records still open. A dry run
 * counts and destroys nothing; a second run finds nothing new.
 */
describe('person delete of sealed records', () => {
  let ds: DataSource;
  let world: SubmitWorld;
  const sealer = keyStoreSealer();

  beforeAll(async () => {
    ds = await mediumDataSource(2);
    world = await submitWorld(ds, [{}]);
  });
  afterAll(() => ds.destroy());

  /** A search of `lead` submitted to the world's offer (checks' DecideSubmit), then both sealed as the services store them. */
  async function sealedSearchAndLead(lead: Lead): Promise<{ searchId: string; leadId: string }> {
    const search = await storeSearch(world, lead);
    const msg = resultSubmit(world, search, world.offerIds[0]);
    const outcome = await decideSubmit(ds).run(msg);
    if (!('deliver' in outcome)) throw new Error('the submit was not reserved');
    await sealStored(ds, sealer, 'searches', search.searchId);
    await sealStored(ds, sealer, 'leads', msg.leadId);
    return { searchId: search.searchId, leadId: msg.leadId };
  }

  const run = (lead: Lead, dryRun: boolean): Promise<DeletionReport> =>
    deletePerson(
      {
        erasure: new PersonErasure(ds),
        sealed: new SealedContacts(ds),
        keys: sealer,
        partitions: new PartitionStore(ds),
        optOuts: new OptOuts(ds),
        states: { forget: () => Promise.resolve(0) },
      },
      {
        keys: leadOptOutKeys(TEST_PERSON_KEY_SECRET, lead),
        typed: { emails: [lead.personal!.email!], phones: [] },
        reference: 'TICKET-SEALED',
        dryRun,
        now: new Date(),
        relay: 'medium',
        secret: TEST_PERSON_KEY_SECRET,
      },
    );

  const docs = async (table: 'searches' | 'leads', ids: string[]): Promise<SealedContact[]> =>
    [...(await sealedOf(ds, table, ids)).values()].map((c) => {
      if (!c) throw new Error('a sealed record lost its sealed document');
      return c;
    });

  it('destroys the data keys of the person sealed records, and only theirs', async () => {
    const person = freshPerson();
    const other = freshPerson();
    const mine = await sealedSearchAndLead(person);
    const testSearch = await storeSearch(world, person, { isTest: true });
    await sealStored(ds, sealer, 'searches', testSearch.searchId);
    const clearSearch = await storeSearch(world, person);
    const theirs = await sealedSearchAndLead(other);

    const mySealed = [...(await docs('searches', [mine.searchId, testSearch.searchId])), ...(await docs('leads', [mine.leadId]))];
    const theirSealed = [...(await docs('searches', [theirs.searchId])), ...(await docs('leads', [theirs.leadId]))];

    const dry = await run(person, true);
    expect(dry.cryptoShredded).toEqual({ searches: 2, leads: 1, deadLetters: 0 });
    expect(dry.searches.ids.sort()).toEqual([mine.searchId, testSearch.searchId, clearSearch.searchId].sort());
    expect(dry.leads.ids).toEqual([mine.leadId]);
    expect((await sealer.tryOpenAll(mySealed)).every((p) => p !== null)).toBe(true);

    const done = await run(person, false);
    expect(done.cryptoShredded).toEqual({ searches: 2, leads: 1, deadLetters: 0 });
    expect(done.searches.ids.sort()).toEqual(dry.searches.ids);
    expect(done.leads.ids).toEqual([mine.leadId]);
    expect(await sealer.tryOpenAll(mySealed)).toEqual([null, null, null]);
    const still = await sealer.tryOpenAll<ContactPart>(theirSealed);
    expect(still.map((p) => p?.lead.personal?.email)).toEqual([other.personal!.email, other.personal!.email]);

    // The rows hold neither the person's email nor their IP; the sealed documents stay, unreadable.
    const rows = await contactColumnsOfRows(ds, 'searches', [mine.searchId, testSearch.searchId, clearSearch.searchId]);
    expect(JSON.stringify(rows)).not.toContain(person.personal!.email!);
    expect(rows.map((r) => r.consumer_ip)).toEqual(['', '', '']);
    expect((await docs('leads', [mine.leadId])).map((d) => d.key)).toEqual([mySealed[2].key]);

    const again = await run(person, false);
    expect(again.cryptoShredded).toEqual({ searches: 0, leads: 0, deadLetters: 0 });
    expect(again.searches.erased + again.leads.erased).toBe(0);
  });
});
