import { randomInt, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dedupeKeysFromHashes, type DedupeKey, type Lead, leadDedupeKeys, leadHashes, sha256Hex } from '@lr/domain';
import {
  createDataSource,
  DUPE_CHECK_ACCOUNT_SQL,
  DUPE_CHECK_OFFER_SQL,
  dupeCheckParams,
  offersAlreadySoldToPerson,
  offersWithFullCaps,
  personSoldToAffiliateOffers,
  partnerAnswerContext,
  searchCheckFacts,
  personSoldToOffer,
} from '@lr/persistence';
import { TEST_DATABASE_URL } from '../../support/test-env';

/**
 * The duplicate pre-check's two lookups (docs/duplicates.md) on the real
 * PostgreSQL: offer-scoped is the submit-time rule for one offer, account-wide
 * is "some offer on the caller's campaigns, each within its own window". Rows
 * are seeded the way the submit path writes them: one `dedupe_keys` row per
 * key of an accepted live lead.
 */
describe('dupe-check queries', () => {
  let ds: DataSource;
  const id = () => randomUUID();
  const ids = {
    affA: id(), affB: id(), school: id(), keyA: id(), keyB: id(),
    campaignA: id(), campaignAPaused: id(), campaignB: id(),
    /** On A's live campaign and on B's: 30-day window. */
    shared: id(),
    /** On A's live campaign only: 7-day window. */
    short: id(),
    /** On A's live campaign: a 0-day window (no duplicate rule). */
    none: id(),
    /** On B's campaign only. */
    bOnly: id(),
    /** Only on A's paused campaign. */
    paused: id(),
    /** On no campaign at all. */
    orphan: id(),
  };
  const windows: Record<string, number> = { shared: 30, short: 7, none: 0, bOnly: 30, paused: 30, orphan: 30 };

  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 2, timeoutMs: 5000 });
    await ds.initialize();
    await ds.query(`INSERT INTO affiliates (id, name, status, dupe_check) VALUES ($1, 'Dupe A', 'active', true), ($2, 'Dupe B', 'active', true)`, [
      ids.affA,
      ids.affB,
    ]);
    await ds.query(`INSERT INTO schools (id, name) VALUES ($1, 'Dupe School')`, [ids.school]);
    for (const name of Object.keys(windows)) {
      await ds.query(
        `INSERT INTO offers (id, name, school_id, source, offer_type, status, delivery, duplicate_window_days)
         VALUES ($1, $2, $3, 'own', 'shared', 'active', '{}', $4)`,
        [ids[name as keyof typeof ids], `Dupe ${name}`, ids.school, windows[name]],
      );
    }
    await ds.query(
      `INSERT INTO campaigns (id, affiliate_id, name, status)
       VALUES ($1, $4, 'A live', 'active'), ($2, $4, 'A paused', 'paused'), ($3, $5, 'B live', 'active')`,
      [ids.campaignA, ids.campaignAPaused, ids.campaignB, ids.affA, ids.affB],
    );
    const onCampaign: Array<[string, string]> = [
      [ids.campaignA, ids.shared], [ids.campaignA, ids.short], [ids.campaignA, ids.none],
      [ids.campaignAPaused, ids.paused],
      [ids.campaignB, ids.shared], [ids.campaignB, ids.bOnly],
    ];
    for (const [i, [campaign, offer]] of onCampaign.entries()) {
      await ds.query(`INSERT INTO campaign_offers (campaign_id, offer_id, position) VALUES ($1, $2, $3)`, [campaign, offer, i]);
    }
    await ds.query(
      `INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix)
       VALUES ($1, $3, $5, 'lr_a'), ($2, $4, $6, 'lr_b')`,
      [ids.keyA, ids.keyB, ids.affA, ids.affB, sha256Hex(ids.keyA), sha256Hex(ids.keyB)],
    );
  });

  afterAll(() => ds?.destroy());

  /** A fresh person per test, so tests never see each other's sales. */
  function person(dob = '1990-07-04'): Lead {
    const tag = randomUUID().slice(0, 8);
    return {
      personal: {
        email: `p.${tag}@example.com`,
        phone: `512${String(randomInt(10_000_000)).padStart(7, '0')}`,
        // Letters only: a last name normalizes to a-z, so digits would vanish and names could collide.
        last_name: `Name${tag.replace(/\d/g, (d) => 'ghijklmnop'[Number(d)])}`,
        date_of_birth: dob,
      },
      address: { zip_code: '75001' },
    };
  }

  /**
   * What an accepted (or reserved) live sale leaves behind: the lead row, and one
   * dedupe_keys row per key, accepted `ago` before now (a PostgreSQL interval).
   */
  async function sold(lead: Lead, offerId: string, ago: string, seller: 'A' | 'B' = 'A'): Promise<void> {
    const leadId = randomUUID();
    const [affiliateId, campaignId, keyId] = seller === 'A' ? [ids.affA, ids.campaignA, ids.keyA] : [ids.affB, ids.campaignB, ids.keyB];
    await ds.query(
      `INSERT INTO leads (id, kind, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, lead_group_id)
       VALUES ($1, 'direct_post', $2, $3, $4, $5, '{}', '73.12.44.10', 'accepted', 'ACCEPTED', $1)`,
      [leadId, affiliateId, campaignId, offerId, keyId],
    );
    for (const key of leadDedupeKeys(lead)) {
      await ds.query(
        `INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() - $7::interval)`,
        [leadId, key.type, key.hash, offerId, ids.school, affiliateId, ago],
      );
    }
  }

  const keysOf = (lead: Lead, ...types: DedupeKey['type'][]) => leadDedupeKeys(lead).filter((k) => types.includes(k.type));
  const accountA = (keys: DedupeKey[]) => personSoldToAffiliateOffers(ds, keys, ids.affA);
  const accountB = (keys: DedupeKey[]) => personSoldToAffiliateOffers(ds, keys, ids.affB);

  it.each<DedupeKey['type']>(['email', 'phone', 'name_zip_dob'])('matches on the %s key alone, offer-scoped and account-wide', async (type) => {
    const p = person();
    await sold(p, ids.shared, '1 day');
    const keys = keysOf(p, type);
    expect(keys).toHaveLength(1);
    expect(await personSoldToOffer(ds, keys, ids.shared)).toBe(true);
    expect(await accountA(keys)).toBe(true);
  });

  it('matches when any one of several keys matches, and not for another person', async () => {
    const p = person();
    await sold(p, ids.shared, '1 day');
    const mixed = [...keysOf(person(), 'email', 'phone'), ...keysOf(p, 'name_zip_dob')];
    expect(await personSoldToOffer(ds, mixed, ids.shared)).toBe(true);
    expect(await accountA(mixed)).toBe(true);
    const stranger = leadDedupeKeys(person());
    expect(await personSoldToOffer(ds, stranger, ids.shared)).toBe(false);
    expect(await accountA(stranger)).toBe(false);
  });

  it('a partial name key (last name + ZIP without date of birth) makes no key and matches nothing', async () => {
    const p = person();
    await sold(p, ids.shared, '1 day');
    const { last_name, zip } = leadHashes(p);
    const partial = dedupeKeysFromHashes({ last_name, zip });
    expect(partial).toEqual([]);
    expect(await personSoldToOffer(ds, partial, ids.shared)).toBe(false);
    expect(await accountA(partial)).toBe(false);
    // Same name and ZIP with another date of birth is another person.
    const twin: Lead = { ...p, personal: { ...p.personal, date_of_birth: '1991-07-04' } };
    expect(await accountA(keysOf(twin, 'name_zip_dob'))).toBe(false);
  });

  it('offer-scoped counts only rows of that offer', async () => {
    const p = person();
    await sold(p, ids.short, '1 day');
    const keys = leadDedupeKeys(p);
    expect(await personSoldToOffer(ds, keys, ids.short)).toBe(true);
    expect(await personSoldToOffer(ds, keys, ids.shared)).toBe(false);
    expect(await accountA(keys)).toBe(true);
  });

  it("window edges: inside the offer's window counts, outside does not; a 0-day window never counts", async () => {
    const inside = person();
    const outside = person();
    const now = person();
    await sold(inside, ids.short, '7 days - 1 minute');
    await sold(outside, ids.short, '7 days 1 minute');
    await sold(now, ids.none, '0 seconds');
    expect(await personSoldToOffer(ds, leadDedupeKeys(inside), ids.short)).toBe(true);
    expect(await accountA(leadDedupeKeys(inside))).toBe(true);
    expect(await personSoldToOffer(ds, leadDedupeKeys(outside), ids.short)).toBe(false);
    expect(await accountA(leadDedupeKeys(outside))).toBe(false);
    expect(await personSoldToOffer(ds, leadDedupeKeys(now), ids.none)).toBe(false);
    expect(await accountA(leadDedupeKeys(now))).toBe(false);
  });

  it("account-wide holds each row to its own offer's window, not the account's longest", async () => {
    const p = person();
    await sold(p, ids.short, '10 days'); // outside short's 7 days, though shared's window is 30
    expect(await accountA(leadDedupeKeys(p))).toBe(false);
    await sold(p, ids.shared, '10 days');
    expect(await accountA(leadDedupeKeys(p))).toBe(true);
  });

  it("other affiliates' offers do not count account-wide; sales of the caller's offers by anyone do", async () => {
    const boughtFromB = person();
    await sold(boughtFromB, ids.bOnly, '1 day', 'B');
    expect(await accountA(leadDedupeKeys(boughtFromB))).toBe(false);
    expect(await accountB(leadDedupeKeys(boughtFromB))).toBe(true);

    const sharedViaB = person();
    await sold(sharedViaB, ids.shared, '1 day', 'B');
    // The submit-time rule is per offer, whoever sold it: A's submit to `shared` would be refused.
    expect(await accountA(leadDedupeKeys(sharedViaB))).toBe(true);
    expect(await personSoldToOffer(ds, leadDedupeKeys(sharedViaB), ids.shared)).toBe(true);
  });

  it("an offer on any of the caller's campaigns counts (a paused one too); an offer on none does not", async () => {
    const p = person();
    const q = person();
    await sold(p, ids.paused, '1 day');
    await sold(q, ids.orphan, '1 day');
    expect(await accountA(leadDedupeKeys(p))).toBe(true);
    expect(await accountA(leadDedupeKeys(q))).toBe(false);
    expect(await accountB(leadDedupeKeys(p))).toBe(false);
  });

  it('answers false without a lookup for no keys', async () => {
    expect(await personSoldToOffer(ds, [], ids.shared)).toBe(false);
    expect(await accountA([])).toBe(false);
  });

  it('offer-scoped agrees with the submit-time check (offersAlreadySoldToPerson) case by case', async () => {
    const cases: Array<[string, string]> = [
      [ids.shared, '1 day'], [ids.shared, '29 days 23 hours'], [ids.shared, '30 days 1 hour'],
      [ids.short, '6 days'], [ids.short, '8 days'], [ids.none, '0 seconds'],
    ];
    for (const [offerId, ago] of cases) {
      const p = person();
      await sold(p, offerId, ago);
      const offerName = Object.keys(ids).find((k) => ids[k as keyof typeof ids] === offerId)!;
      for (const keys of [leadDedupeKeys(p), keysOf(p, 'phone'), leadDedupeKeys(person())]) {
        const submit = await offersAlreadySoldToPerson(ds, keys, [{ offerId, windowDays: windows[offerName] }]);
        expect([offerName, ago, await personSoldToOffer(ds, keys, offerId)]).toEqual([offerName, ago, submit.has(offerId)]);
      }
    }
  });

  it('both statements compare the hashes as char(64), so the (key_type, key_hash, …) indexes can serve them', async () => {
    const keys = leadDedupeKeys(person());
    const plan = async (sql: string, scope: string): Promise<string> => {
      const rows: Array<{ 'QUERY PLAN': string }> = await ds.query(`EXPLAIN ${sql}`, dupeCheckParams(keys, scope));
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    // What a text[] parameter would do: the column is cast, and no index on key_hash applies. (The plan names the
    // column with or without its alias depending on the plan PostgreSQL picks for the data the other suites left.)
    const textual = await plan(DUPE_CHECK_OFFER_SQL.replace('$2::char(64)[]', '$2::text[]'), ids.shared);
    expect(textual).toMatch(/\((?:d\.)?key_hash\)::text/);
    // These tables are tiny, so which plan wins here says nothing; bench/dupe-check-bench.ts shows the plans on a million rows.
    for (const [sql, scope] of [[DUPE_CHECK_OFFER_SQL, ids.shared], [DUPE_CHECK_ACCOUNT_SQL, ids.affA]]) {
      const p = await plan(sql, scope);
      expect(p).toMatch(/key_hash = (?:[dk]\.)?key_hash/);
      expect(p).not.toMatch(/key_hash\)::text/);
    }
  });

  it('searchCheckFacts: caps, the person check and the sale state in one statement, each as its own lookup answers it', async () => {
    const p = person();
    await sold(p, ids.shared, '1 day');
    await sold(p, ids.short, '8 days'); // outside its 7-day window
    // Full caps (limit 0): `short` on campaign A, `shared` on campaign B only.
    await ds.query(`INSERT INTO caps (offer_id, campaign_id, period, "limit") VALUES ($1, $2, 'day', 0), ($3, $4, 'day', 0)`, [
      ids.short, ids.campaignA, ids.shared, ids.campaignB,
    ]);
    const searchId = randomUUID();
    await ds.query(
      `INSERT INTO searches (id, affiliate_id, campaign_id, api_key_id, lead, consumer_ip, ip_source, closes_at, accepted_count)
       VALUES ($1, $2, $3, $4, '{}', '73.12.44.10', 'consumer', now() + interval '45 seconds', 2)`,
      [searchId, ids.affA, ids.campaignA, ids.keyA],
    );
    const offers = (['shared', 'short', 'none'] as const).map((name) => ({ offerId: ids[name], windowDays: windows[name] }));
    const keys = leadDedupeKeys(p);

    const facts = await searchCheckFacts(ds, { campaignId: ids.campaignA, offers, keys, searchId });
    expect(facts.fullCaps).toEqual(new Set([ids.short]));
    expect(facts.alreadySold).toEqual(new Set([ids.shared]));
    expect(facts.sale).toEqual({ acceptedCount: 2, trueExclusiveAccepted: false, exclusiveSchoolIds: new Set() });
    // The same answers as the lookups the submit path makes one by one.
    expect(facts.fullCaps).toEqual(await offersWithFullCaps(ds, ids.campaignA, offers.map((o) => o.offerId)));
    expect(facts.alreadySold).toEqual(await offersAlreadySoldToPerson(ds, keys, offers));

    // No keys (a test search) skips the person check; no search id (not stored yet) is an unsold lead.
    const unstored = await searchCheckFacts(ds, { campaignId: ids.campaignB, offers, keys: [] });
    expect(unstored).toEqual({ fullCaps: new Set([ids.shared]), alreadySold: new Set(), sale: { acceptedCount: 0, trueExclusiveAccepted: false, exclusiveSchoolIds: new Set() } });
    // Nothing to check and no search: no round trip at all, nothing found.
    expect(await searchCheckFacts(ds, { campaignId: ids.campaignA, offers: [], keys })).toEqual({ fullCaps: new Set(), alreadySold: new Set(), sale: unstored.sale });
  });

  it('partnerAnswerContext: a partner answer reads the same facts with the search, by its stored person keys and the offers\' windows', async () => {
    const p = person();
    await sold(p, ids.shared, '2 days');
    await sold(p, ids.none, '1 day'); // a 0-day window: never a duplicate
    const keys = leadDedupeKeys(p);
    const partner = randomUUID();
    await ds.query(`INSERT INTO partners (id, name, adapter, base_url) VALUES ($1, $2, 'sandbox', 'http://127.0.0.1:9/p')`, [partner, `P ${partner}`]);
    const store = async (personKeys: unknown, status = 'pending', isTest = false) => {
      const searchId = randomUUID();
      await ds.query(
        `INSERT INTO searches (id, affiliate_id, campaign_id, api_key_id, lead, consumer_ip, ip_source, closes_at, accepted_count, state_version, person_keys, is_test)
         VALUES ($1, $2, $3, $4, $5, '73.12.44.10', 'consumer', now() + interval '45 seconds', 1, 3, $6, $7)`,
        [searchId, ids.affA, ids.campaignA, ids.keyA, JSON.stringify(p), personKeys === null ? null : JSON.stringify(personKeys), isTest],
      );
      await ds.query(`INSERT INTO search_partner_calls (search_id, partner_id, offer_ids, status) VALUES ($1, $2, $3, $4)`, [
        searchId, partner, [ids.shared, ids.short], status,
      ]);
      return searchId;
    };
    const offerIds = [ids.shared, ids.short, ids.none];
    const offers = offerIds.map((offerId) => ({ offerId, windowDays: windows[Object.keys(ids).find((k) => ids[k as keyof typeof ids] === offerId)!] }));

    const searchId = await store(keys);
    const ctx = await partnerAnswerContext(ds, { searchId, partnerId: partner, offerIds });
    const facts = await searchCheckFacts(ds, { campaignId: ids.campaignA, offers, keys, searchId });
    expect(ctx).toEqual(expect.objectContaining({ campaignId: ids.campaignA, isTest: false, version: 3, pending: true, shown: [], lead: p }));
    expect(ctx!.callOfferIds.sort()).toEqual([ids.shared, ids.short].sort());
    expect(ctx!.facts).toEqual(facts);
    expect(ctx!.facts.alreadySold).toEqual(new Set([ids.shared]));

    // A test search stores no keys: no person check. A search stored before person keys existed: the caller looks the person up.
    expect((await partnerAnswerContext(ds, { searchId: await store([]), partnerId: partner, offerIds }))!.facts.alreadySold).toEqual(new Set());
    expect((await partnerAnswerContext(ds, { searchId: await store(null), partnerId: partner, offerIds }))!.facts.alreadySold).toBeNull();
    // ... unless it is a test search: those never had a person check, keys or not.
    expect((await partnerAnswerContext(ds, { searchId: await store(null, 'pending', true), partnerId: partner, offerIds }))!.facts.alreadySold).toEqual(new Set());
    // A call that took its answer reads no facts; an unknown call reads nothing.
    const answered = await partnerAnswerContext(ds, { searchId: await store(keys, 'answered'), partnerId: partner, offerIds });
    expect([answered!.pending, answered!.shown, answered!.facts.fullCaps]).toEqual([false, [], new Set()]);
    expect(await partnerAnswerContext(ds, { searchId, partnerId: randomUUID(), offerIds })).toBeUndefined();
  });
});
