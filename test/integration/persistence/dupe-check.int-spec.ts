import { randomInt, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  CampaignOffer,
  capPeriodStart,
  capsAt,
  capScope,
  dedupeKeysFromHashes,
  type DedupeKey,
  fullCap,
  type Lead,
  leadDedupeKeys,
  leadHashes,
  offersSoldToPerson,
  optOutKeysOf,
  optOutRecord,
  type SaleFacts,
  sha256Hex,
  slotKey,
  soldWithinWindow,
} from '@lr/domain';
import {
  CatalogRepository,
  createDataSource,
  DedupeIndex,
  OptOuts,
  type PreCheckScope,
  SaleLedger,
  SearchRepository,
} from '@lr/persistence';
import { appendResults } from '../../support/stored-results';
import { TEST_DATABASE_URL } from '../../support/test-env';
import { TEST_PERSON_KEY_SECRET } from '../../support/person-key';

/**
 * The duplicate pre-check's two reads (docs/duplicates.md) on the real
 * PostgreSQL: offer-scoped is the submit-time rule for one offer, account-wide
 * is "some offer on the caller's campaigns, each within its own window". The
 * dedupe index says when the person was last sold each offer of the scope;
 * the domain's rule (soldWithinWindow) decides, as the gateway's pre-check
 * does. Rows are seeded the way the submit path writes them: one
 * `dedupe_keys` row per key of an accepted live lead.
 */
describe('dupe-check queries', () => {
  let ds: DataSource;
  let index: DedupeIndex;
  let ledger: SaleLedger;
  let catalog: CatalogRepository;
  let searches: SearchRepository;
  const id = () => randomUUID();
  const ids = {
    affA: id(),
    affB: id(),
    school: id(),
    keyA: id(),
    keyB: id(),
    campaignA: id(),
    campaignAPaused: id(),
    campaignB: id(),
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
    index = new DedupeIndex(ds);
    ledger = new SaleLedger(ds);
    catalog = new CatalogRepository(ds);
    searches = new SearchRepository(ds);
    await ds.query(
      `INSERT INTO affiliates (id, name, status, dupe_check) VALUES ($1, 'Dupe A', 'active', true), ($2, 'Dupe B', 'active', true)`,
      [ids.affA, ids.affB],
    );
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
      [ids.campaignA, ids.shared],
      [ids.campaignA, ids.short],
      [ids.campaignA, ids.none],
      [ids.campaignAPaused, ids.paused],
      [ids.campaignB, ids.shared],
      [ids.campaignB, ids.bOnly],
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
    for (const key of leadDedupeKeys(TEST_PERSON_KEY_SECRET, lead)) {
      await ds.query(
        `INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() - $7::interval)`,
        [leadId, key.type, key.hash, offerId, ids.school, affiliateId, ago],
      );
    }
  }

  /** The lead's status and code that go with a sale's status. */
  const LEAD_OF_SALE = {
    reserved: ['pending', 'PENDING'],
    accepted: ['accepted', 'ACCEPTED'],
    released: ['rejected', 'BUYER_REJECTED'],
  } as const;

  /**
   * A sale of search `searchId`'s lead (a submit of its result for
   * `offerId`): the result, the lead, and the sale in the search's lead group.
   */
  async function soldOnSearch(searchId: string, offerId: string, status: 'reserved' | 'accepted' | 'released'): Promise<void> {
    const resultId = randomUUID();
    const leadId = randomUUID();
    await appendResults(ds, searchId, [{ id: resultId, offerId, expiresAt: new Date(Date.now() + 600_000) }]);
    await ds.query(
      `INSERT INTO leads (id, kind, search_id, result_id, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, lead_group_id)
       VALUES ($1, 'result_submit', $2, $3, $4, $5, $6, $7, '{}', '73.12.44.10', $8, $9, $2)`,
      [leadId, searchId, resultId, ids.affA, ids.campaignA, offerId, ids.keyA, ...LEAD_OF_SALE[status]],
    );
    await ds.query(
      `INSERT INTO sales (lead_id, search_id, lead_group_id, offer_id, school_id, campaign_id, affiliate_id, offer_type, status)
       VALUES ($1, $2, $2, $3, $4, $5, $6, 'shared', $7)`,
      [leadId, searchId, offerId, ids.school, ids.campaignA, ids.affA, status],
    );
  }

  const keysOf = (lead: Lead, ...types: DedupeKey['type'][]) =>
    leadDedupeKeys(TEST_PERSON_KEY_SECRET, lead).filter((k) => types.includes(k.type));
  /** The pre-check's answer as the gateway decides it: a key of the person sold to an offer of the scope within that offer's window. */
  const duplicateLikely = async (keys: DedupeKey[], scope: PreCheckScope): Promise<boolean> => {
    const now = new Date();
    return (await index.lastSales(keys, scope)).some((s) => soldWithinWindow(s.soldAt, s.windowDays, now));
  };
  const soldToOffer = (keys: DedupeKey[], offerId: string) => duplicateLikely(keys, { offerIds: [offerId] });
  const accountA = (keys: DedupeKey[]) => duplicateLikely(keys, { affiliateId: ids.affA });
  const accountB = (keys: DedupeKey[]) => duplicateLikely(keys, { affiliateId: ids.affB });
  /** The cap slots of `offers` now, as the services compute them from the catalog's caps. */
  const slotsOf = (offers: readonly CampaignOffer[], now: Date) => offers.flatMap((o) => capsAt(o.caps, now).map((c) => c.slot));
  /** The offers whose cap is full by the usage read (the domain's rule: used >= limit). */
  const fullOf = (offers: readonly CampaignOffer[], facts: Pick<SaleFacts, 'capUsage'>, now: Date) =>
    new Set(offers.filter((o) => fullCap(capsAt(o.caps, now), facts.capUsage) !== undefined).map((o) => o.offerId));
  const windowsOf = (offers: readonly CampaignOffer[]) => offers.map((o) => ({ offerId: o.offerId, windowDays: o.duplicateWindowDays }));

  it.each<DedupeKey['type']>(['email', 'phone', 'name_zip_dob'])(
    'matches on the %s key alone, offer-scoped and account-wide',
    async (type) => {
      const p = person();
      await sold(p, ids.shared, '1 day');
      const keys = keysOf(p, type);
      expect(keys).toHaveLength(1);
      expect(await soldToOffer(keys, ids.shared)).toBe(true);
      expect(await accountA(keys)).toBe(true);
    },
  );

  it('matches when any one of several keys matches, and not for another person', async () => {
    const p = person();
    await sold(p, ids.shared, '1 day');
    const mixed = [...keysOf(person(), 'email', 'phone'), ...keysOf(p, 'name_zip_dob')];
    expect(await soldToOffer(mixed, ids.shared)).toBe(true);
    expect(await accountA(mixed)).toBe(true);
    const stranger = leadDedupeKeys(TEST_PERSON_KEY_SECRET, person());
    expect(await soldToOffer(stranger, ids.shared)).toBe(false);
    expect(await accountA(stranger)).toBe(false);
  });

  it('a partial name key (last name + ZIP without date of birth) makes no key and matches nothing', async () => {
    const p = person();
    await sold(p, ids.shared, '1 day');
    const { last_name, zip } = leadHashes(p);
    const partial = dedupeKeysFromHashes(TEST_PERSON_KEY_SECRET, { last_name, zip });
    expect(partial).toEqual([]);
    expect(await soldToOffer(partial, ids.shared)).toBe(false);
    expect(await accountA(partial)).toBe(false);
    // Same name and ZIP with another date of birth is another person.
    const twin: Lead = { ...p, personal: { ...p.personal, date_of_birth: '1991-07-04' } };
    expect(await accountA(keysOf(twin, 'name_zip_dob'))).toBe(false);
  });

  it('offer-scoped counts only rows of that offer', async () => {
    const p = person();
    await sold(p, ids.short, '1 day');
    const keys = leadDedupeKeys(TEST_PERSON_KEY_SECRET, p);
    expect(await soldToOffer(keys, ids.short)).toBe(true);
    expect(await soldToOffer(keys, ids.shared)).toBe(false);
    expect(await accountA(keys)).toBe(true);
  });

  it("window edges: inside the offer's window counts, outside does not; a 0-day window never counts", async () => {
    const inside = person();
    const outside = person();
    const now = person();
    await sold(inside, ids.short, '7 days - 1 minute');
    await sold(outside, ids.short, '7 days 1 minute');
    await sold(now, ids.none, '0 seconds');
    expect(await soldToOffer(leadDedupeKeys(TEST_PERSON_KEY_SECRET, inside), ids.short)).toBe(true);
    expect(await accountA(leadDedupeKeys(TEST_PERSON_KEY_SECRET, inside))).toBe(true);
    expect(await soldToOffer(leadDedupeKeys(TEST_PERSON_KEY_SECRET, outside), ids.short)).toBe(false);
    expect(await accountA(leadDedupeKeys(TEST_PERSON_KEY_SECRET, outside))).toBe(false);
    expect(await soldToOffer(leadDedupeKeys(TEST_PERSON_KEY_SECRET, now), ids.none)).toBe(false);
    expect(await accountA(leadDedupeKeys(TEST_PERSON_KEY_SECRET, now))).toBe(false);
  });

  it("account-wide holds each row to its own offer's window, not the account's longest", async () => {
    const p = person();
    await sold(p, ids.short, '10 days'); // outside short's 7 days, though shared's window is 30
    expect(await accountA(leadDedupeKeys(TEST_PERSON_KEY_SECRET, p))).toBe(false);
    await sold(p, ids.shared, '10 days');
    expect(await accountA(leadDedupeKeys(TEST_PERSON_KEY_SECRET, p))).toBe(true);
  });

  it("other affiliates' offers do not count account-wide; sales of the caller's offers by anyone do", async () => {
    const boughtFromB = person();
    await sold(boughtFromB, ids.bOnly, '1 day', 'B');
    expect(await accountA(leadDedupeKeys(TEST_PERSON_KEY_SECRET, boughtFromB))).toBe(false);
    expect(await accountB(leadDedupeKeys(TEST_PERSON_KEY_SECRET, boughtFromB))).toBe(true);

    const sharedViaB = person();
    await sold(sharedViaB, ids.shared, '1 day', 'B');
    // The submit-time rule is per offer, whoever sold it: A's submit to `shared` would be refused.
    expect(await accountA(leadDedupeKeys(TEST_PERSON_KEY_SECRET, sharedViaB))).toBe(true);
    expect(await soldToOffer(leadDedupeKeys(TEST_PERSON_KEY_SECRET, sharedViaB), ids.shared)).toBe(true);
  });

  it("an offer on any of the caller's campaigns counts (a paused one too); an offer on none does not", async () => {
    const p = person();
    const q = person();
    await sold(p, ids.paused, '1 day');
    await sold(q, ids.orphan, '1 day');
    expect(await accountA(leadDedupeKeys(TEST_PERSON_KEY_SECRET, p))).toBe(true);
    expect(await accountA(leadDedupeKeys(TEST_PERSON_KEY_SECRET, q))).toBe(false);
    expect(await accountB(leadDedupeKeys(TEST_PERSON_KEY_SECRET, p))).toBe(false);
  });

  it('answers false without a lookup for no keys', async () => {
    expect(await index.lastSales([], { offerIds: [ids.shared] })).toEqual([]);
    expect(await index.lastSales([], { affiliateId: ids.affA })).toEqual([]);
    expect(await soldToOffer([], ids.shared)).toBe(false);
    expect(await accountA([])).toBe(false);
  });

  it('offer-scoped agrees with the submit-time check (SaleLedger.saleFacts and the duplicate rule) case by case', async () => {
    const cases: Array<[string, string]> = [
      [ids.shared, '1 day'],
      [ids.shared, '29 days 23 hours'],
      [ids.shared, '30 days 1 hour'],
      [ids.short, '6 days'],
      [ids.short, '8 days'],
      [ids.none, '0 seconds'],
    ];
    for (const [offerId, ago] of cases) {
      const p = person();
      await sold(p, offerId, ago);
      const offerName = Object.keys(ids).find((k) => ids[k as keyof typeof ids] === offerId)!;
      for (const keys of [
        leadDedupeKeys(TEST_PERSON_KEY_SECRET, p),
        keysOf(p, 'phone'),
        leadDedupeKeys(TEST_PERSON_KEY_SECRET, person()),
      ]) {
        const facts = await ledger.saleFacts({ groupId: null, slots: [], keys, offerIds: [offerId], optOutKeys: [] });
        const submit = offersSoldToPerson(facts.lastSales, [{ offerId, windowDays: windows[offerName] }], new Date());
        expect([offerName, ago, await soldToOffer(keys, offerId)]).toEqual([offerName, ago, submit.has(offerId)]);
      }
    }
  });

  it('both statements compare the hashes as char(64), so the (key_type, key_hash, …) indexes can serve them', async () => {
    const keys = leadDedupeKeys(TEST_PERSON_KEY_SECRET, person());
    const plan = async ({ sql, params }: { sql: string; params: unknown[] }): Promise<string> => {
      const rows: Array<{ 'QUERY PLAN': string }> = await ds.query(`EXPLAIN ${sql}`, params);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    const byOffer = DedupeIndex.lastSalesStatement(keys, { offerIds: [ids.shared] });
    const byAccount = DedupeIndex.lastSalesStatement(keys, { affiliateId: ids.affA });
    // What a text comparison would do (the casts to char(64) taken out of the statement): the column is cast, and no
    // index on key_hash applies. (The plan names the column with or without its alias depending on the plan
    // PostgreSQL picks for the data the other suites left.)
    const asText = byOffer.sql.replace('$2::char(64)[]', '$2::text[]').replace('k.key_hash::char(64)', 'k.key_hash');
    expect(asText).not.toContain('char(64)');
    const textual = await plan({ sql: asText, params: byOffer.params });
    expect(textual).toMatch(/\((?:d\.)?key_hash\)::text/);
    // These tables are tiny, so which plan wins here says nothing; bench/dupe-check-bench.ts shows the plans on a million rows.
    for (const statement of [byOffer, byAccount]) {
      const p = await plan(statement);
      // The column itself, uncast, against a char(64) value (the plan puts it on either side).
      expect(p).toMatch(/\bkey_hash = \([^()]+\)::character\(64\)|::character\(64\) = (?:d\.)?key_hash\b/);
      expect(p).not.toMatch(/key_hash\)::text/);
    }
  });

  it("SaleLedger.saleFacts: caps' usage, the person's last sales and the live sales in one statement, each as its own lookup answers it", async () => {
    const p = person();
    await sold(p, ids.shared, '1 day');
    await sold(p, ids.short, '8 days'); // outside its 7-day window
    // Full caps (limit 0): `short` on campaign A, `shared` on campaign B only.
    await ds.query(`INSERT INTO caps (offer_id, campaign_id, period, "limit") VALUES ($1, $2, 'day', 0), ($3, $4, 'day', 0)`, [
      ids.short,
      ids.campaignA,
      ids.shared,
      ids.campaignB,
    ]);
    // A cap with room: `none` on campaign A, 2 a day in Chicago, 1 sale counted in today's slot (read back by the slot the domain computes).
    const now = new Date();
    await ds.query(`INSERT INTO caps (offer_id, campaign_id, period, "limit", timezone) VALUES ($1, $2, 'day', 2, 'America/Chicago')`, [
      ids.none,
      ids.campaignA,
    ]);
    const noneSlot = {
      scope: capScope(ids.none, ids.campaignA),
      period: 'day' as const,
      periodStart: capPeriodStart('day', 'America/Chicago', now),
    };
    await ds.query(`INSERT INTO cap_usage (scope, period, period_start, used) VALUES ($1, $2, $3, 1)`, [
      noneSlot.scope,
      noneSlot.period,
      noneSlot.periodStart,
    ]);
    const searchId = randomUUID();
    await ds.query(
      `INSERT INTO searches (id, part_day, affiliate_id, campaign_id, api_key_id, lead, consumer_ip, ip_source, closes_at)
       VALUES ($1, lr_id_day($1), $2, $3, $4, '{}', '73.12.44.10', 'consumer', now() + interval '45 seconds')`,
      [searchId, ids.affA, ids.campaignA, ids.keyA],
    );
    // Two live sales of the search's lead (accepted, reserved) and a released one, which no longer counts.
    await soldOnSearch(searchId, ids.shared, 'accepted');
    await soldOnSearch(searchId, ids.none, 'reserved');
    await soldOnSearch(searchId, ids.short, 'released');
    const offersA = await catalog.campaignOffers(ids.campaignA);
    expect(offersA.map((o) => o.offerId)).toEqual([ids.shared, ids.short, ids.none]);
    expect(windowsOf(offersA)).toEqual(
      (['shared', 'short', 'none'] as const).map((name) => ({ offerId: ids[name], windowDays: windows[name] })),
    );
    const offerIds = offersA.map((o) => o.offerId);
    const keys = leadDedupeKeys(TEST_PERSON_KEY_SECRET, p);

    const facts = await ledger.saleFacts({ groupId: searchId, slots: slotsOf(offersA, now), keys, offerIds, optOutKeys: [] });
    const fullCaps = fullOf(offersA, facts, now);
    const alreadySold = offersSoldToPerson(facts.lastSales, windowsOf(offersA), now);
    expect(fullCaps).toEqual(new Set([ids.short]));
    expect(alreadySold).toEqual(new Set([ids.shared]));
    expect(facts.capUsage.get(slotKey(noneSlot))).toBe(1);
    // Replaces `sale: { acceptedCount: 2, trueExclusiveAccepted: false, exclusiveSchoolIds: ∅ }` (the searches row counters): the group's live sales.
    expect([...facts.liveSales].sort((a, b) => a.offerId.localeCompare(b.offerId))).toEqual(
      [ids.shared, ids.none].sort().map((offerId) => ({ offerId, schoolId: ids.school, offerType: 'shared' })),
    );
    // The same answers as the reads the submit path makes one offer at a time, and as the pre-check's dedupe index.
    for (const o of offersA) {
      const one = await ledger.saleFacts({ groupId: searchId, slots: slotsOf([o], now), keys, offerIds: [o.offerId], optOutKeys: [] });
      expect([
        o.offerId,
        fullOf([o], one, now).has(o.offerId),
        offersSoldToPerson(one.lastSales, windowsOf([o]), now).has(o.offerId),
        one.liveSales,
      ]).toEqual([o.offerId, fullCaps.has(o.offerId), alreadySold.has(o.offerId), facts.liveSales]);
    }
    const preCheck = await index.lastSales(keys, { offerIds });
    expect(new Set(preCheck.filter((x) => soldWithinWindow(x.soldAt, x.windowDays, now)).map((x) => x.offerId))).toEqual(alreadySold);

    // No keys (a test search) skips the person check; no group (a search not stored yet) is an unsold lead.
    const offersB = await catalog.campaignOffers(ids.campaignB);
    const unstored = await ledger.saleFacts({
      groupId: null,
      slots: slotsOf(offersB, now),
      keys: [],
      offerIds: offersB.map((o) => o.offerId),
      optOutKeys: [],
    });
    expect([fullOf(offersB, unstored, now), unstored.lastSales, unstored.liveSales]).toEqual([new Set([ids.shared]), new Map(), []]);
    // Nothing to check and no group: nothing found. (No round trip at all is now the caller's: a search with no candidate offers reads no facts.)
    expect(await ledger.saleFacts({ groupId: null, slots: [], keys, offerIds: [], optOutKeys: [] })).toEqual({
      liveSales: [],
      capUsage: new Map(),
      lastSales: new Map(),
      suppressed: false,
    });
  });

  it("SearchRepository.partnerAnswerContext: a partner answer reads the same facts with the search, by its stored person keys and the offers' windows", async () => {
    const p = person();
    await sold(p, ids.shared, '2 days');
    await sold(p, ids.none, '1 day'); // a 0-day window: never a duplicate
    const keys = leadDedupeKeys(TEST_PERSON_KEY_SECRET, p);
    const partner = randomUUID();
    await ds.query(`INSERT INTO partners (id, name, adapter, base_url) VALUES ($1, $2, 'sandbox', 'http://127.0.0.1:9/p')`, [
      partner,
      `P ${partner}`,
    ]);
    const store = async (personKeys: unknown, status = 'pending', isTest = false) => {
      const searchId = randomUUID();
      await ds.query(
        `INSERT INTO searches (id, part_day, affiliate_id, campaign_id, api_key_id, lead, consumer_ip, ip_source, closes_at, state_version, person_keys, is_test)
         VALUES ($1, lr_id_day($1), $2, $3, $4, $5, '73.12.44.10', 'consumer', now() + interval '45 seconds', 3, $6, $7)`,
        [searchId, ids.affA, ids.campaignA, ids.keyA, JSON.stringify(p), personKeys === null ? null : JSON.stringify(personKeys), isTest],
      );
      await ds.query(
        `INSERT INTO search_partner_calls (search_id, partner_id, part_day, offer_ids, status) VALUES ($1, $2, lr_id_day($1), $3, $4)`,
        [searchId, partner, [ids.shared, ids.short], status],
      );
      return searchId;
    };
    const now = new Date();
    // An offer-wide cap of `shared` with 3 sales counted this week: what a pending call reads of the caps.
    await ds.query(`INSERT INTO caps (offer_id, campaign_id, period, "limit") VALUES ($1, NULL, 'week', 10)`, [ids.shared]);
    const sharedSlot = {
      scope: capScope(ids.shared, null),
      period: 'week' as const,
      periodStart: capPeriodStart('week', 'America/New_York', now),
    };
    await ds.query(`INSERT INTO cap_usage (scope, period, period_start, used) VALUES ($1, $2, $3, 3)`, [
      sharedSlot.scope,
      sharedSlot.period,
      sharedSlot.periodStart,
    ]);
    const offersA = await catalog.campaignOffers(ids.campaignA);
    const offerIds = [ids.shared, ids.short, ids.none];
    expect(offersA.map((o) => o.offerId)).toEqual(offerIds);
    const slots = slotsOf(offersA, now);
    const context = (searchId: string, partnerId = partner) =>
      searches.partnerAnswerContext({ searchId, partnerIds: [partnerId], offerIds, slots });
    const soldOf = (facts: { lastSales: SaleFacts['lastSales'] | null }) => offersSoldToPerson(facts.lastSales!, windowsOf(offersA), now);

    const searchId = await store(keys);
    const ctx = await context(searchId);
    const facts = await ledger.saleFacts({ groupId: searchId, slots, keys, offerIds, optOutKeys: [] });
    expect(ctx).toEqual(
      expect.objectContaining({ campaignId: ids.campaignA, isTest: false, version: 3, pending: true, shown: [], lead: p }),
    );
    expect(ctx!.calls.map((c) => [c.partnerId, c.pending])).toEqual([[partner, true]]);
    expect(ctx!.calls[0].offerIds.sort()).toEqual([ids.shared, ids.short].sort());
    expect(ctx!.facts).toEqual(facts);
    expect(soldOf(ctx!.facts)).toEqual(new Set([ids.shared]));

    // A test search stores no keys: no person check. A search stored before person keys existed: the caller looks the person up.
    const noKeys = (await context(await store([])))!.facts;
    expect([noKeys.lastSales, soldOf(noKeys)]).toEqual([new Map(), new Set()]);
    expect((await context(await store(null)))!.facts.lastSales).toBeNull();
    // ... unless it is a test search: those never had a person check, keys or not.
    expect((await context(await store(null, 'pending', true)))!.facts.lastSales).toEqual(new Map());
    // A call that took its answer reads no facts (not even the caps' usage a pending call reads); an unknown call reads nothing.
    expect(ctx!.facts.capUsage.get(slotKey(sharedSlot))).toBe(3);
    const answered = await context(await store(keys, 'answered'));
    expect([answered!.pending, answered!.shown, answered!.facts]).toEqual([
      false,
      [],
      { liveSales: [], capUsage: new Map(), lastSales: new Map(), suppressed: false },
    ]);
    expect(await context(searchId, randomUUID())).toBeUndefined();

    // Once the person opts out (by their phone), a pending answer reads them suppressed, as the sale facts do.
    expect(ctx!.facts.suppressed).toBe(false);
    const phone = optOutKeysOf(TEST_PERSON_KEY_SECRET, { phone: p.personal!.phone });
    await new OptOuts(ds).record(
      optOutRecord({
        id: randomUUID(),
        receivedAt: now,
        source: 'operator',
        affiliateId: null,
        apiKeyId: null,
        reference: null,
        keys: phone,
        actor: 'operator',
        relay: 'dupe-check-test',
      }),
    );
    expect((await context(searchId))!.facts.suppressed).toBe(true);
    expect(
      (
        await ledger.saleFacts({
          groupId: null,
          slots: [],
          keys: [],
          offerIds: [],
          optOutKeys: optOutKeysOf(TEST_PERSON_KEY_SECRET, { phone: `+1 ${p.personal!.phone}` }),
        })
      ).suppressed,
    ).toBe(true);
  });
});
