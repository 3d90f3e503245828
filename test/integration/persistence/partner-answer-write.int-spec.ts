import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { PartnerOfferResult } from '@lr/contracts';
import { CampaignOffer, capsAt, partnerResult } from '@lr/domain';
import { CatalogRepository, createDataSource, NewResult, newResult, SearchRepository } from '@lr/persistence';
import { TEST_DATABASE_URL } from '../../support/test-env';
import { appendResults } from '../../support/stored-results';

/**
 * The optimistic write of a partner answer (SearchRepository.saveAnswer)
 * on the real PostgreSQL: it writes only on the version its merge read and only
 * for a pending call; of answers racing on one version exactly one lands, the
 * rest write nothing (and merge again from a fresh read); the search is done
 * when the last pending call takes its answer.
 */
describe('partner answer write (optimistic, one statement)', () => {
  let ds: DataSource;
  let repo: SearchRepository;
  const id = () => randomUUID();
  const ids = {
    aff: id(),
    key: id(),
    campaign: id(),
    school: id(),
    partners: [id(), id(), id()],
    offers: [id(), id(), id()],
    schools: [id(), id(), id()],
  };
  let catalog: Map<string, CampaignOffer>;

  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 6, timeoutMs: 5000 });
    await ds.initialize();
    repo = new SearchRepository(ds);
    await ds.query(`INSERT INTO affiliates (id, name, status, dupe_check) VALUES ($1, 'Write A', 'active', false)`, [ids.aff]);
    await ds.query(`INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix) VALUES ($1, $2, $3, 'lr_w')`, [
      ids.key,
      ids.aff,
      ids.key.replace(/-/g, '').padEnd(64, '0'),
    ]);
    await ds.query(`INSERT INTO campaigns (id, affiliate_id, name, status) VALUES ($1, $2, 'Write', 'active')`, [ids.campaign, ids.aff]);
    for (const [i, partner] of ids.partners.entries()) {
      await ds.query(`INSERT INTO schools (id, name) VALUES ($1, $2)`, [ids.schools[i], `Write School ${i}`]);
      await ds.query(`INSERT INTO partners (id, name, adapter, base_url) VALUES ($1, $2, 'sandbox', 'http://127.0.0.1:9/p')`, [
        partner,
        `Write partner ${partner}`,
      ]);
      await ds.query(
        `INSERT INTO offers (id, name, school_id, source, partner_id, external_id, offer_type, status, priority)
         VALUES ($1, $2, $3, 'partner', $4, $5, 'shared', 'active', $6)`,
        [ids.offers[i], `Write offer ${i}`, ids.schools[i], partner, `w-${i}`, i],
      );
      await ds.query(`INSERT INTO campaign_offers (campaign_id, offer_id, position, payout) VALUES ($1, $2, $3, 5)`, [
        ids.campaign,
        ids.offers[i],
        i,
      ]);
    }
    catalog = new Map((await new CatalogRepository(ds).campaignOffers(ids.campaign)).map((o) => [o.offerId, o]));
  });

  afterAll(() => ds?.destroy());

  /** A search (version 1, nothing shown yet) with a pending call to each partner. */
  async function search(): Promise<string> {
    const searchId = id();
    await ds.query(
      `INSERT INTO searches (id, part_day, affiliate_id, campaign_id, api_key_id, lead, consumer_ip, ip_source, closes_at, state_version, person_keys)
       VALUES ($1, lr_id_day($1), $2, $3, $4, '{}', '73.12.44.10', 'consumer', now() + interval '45 seconds', 1, '[]')`,
      [searchId, ids.aff, ids.campaign, ids.key],
    );
    for (const [i, partner] of ids.partners.entries()) {
      await ds.query(
        `INSERT INTO search_partner_calls (search_id, partner_id, part_day, offer_ids, status) VALUES ($1, $2, lr_id_day($1), $3, 'pending')`,
        [searchId, partner, [ids.offers[i]]],
      );
    }
    return searchId;
  }

  /** Partner i's answer, merged onto `order` (its result appended). */
  function answer(i: number, order: string[]) {
    const r: PartnerOfferResult = {
      offerId: ids.offers[i],
      externalId: `w-${i}`,
      partnerResultId: `pr-${i}`,
      programs: [{ value: 'g', label: 'General' }],
      formFields: [],
      tcpaText: 'ok',
      school: null,
      expiresInSeconds: 600,
    };
    const c = partnerResult(catalog.get(ids.offers[i])!, r, new Date());
    // The row as the merge hands it to the repository: the entry serialized once.
    const added: NewResult[] = [newResult(c)];
    return {
      call: { partnerId: ids.partners[i], outcome: 'answered', latencyMs: 5, resultCount: 1, detail: null },
      change: { order: [...order, c.resultId], decisions: { [ids.offers[i]]: { shown: true, result_id: c.resultId } }, added },
    };
  }

  /** What the merge reads before it writes (the cap slots of the answer's offers, as the service computes them). */
  const context = (searchId: string, i: number) =>
    repo.partnerAnswerContext({
      searchId,
      partnerIds: [ids.partners[i]],
      offerIds: [ids.offers[i]],
      slots: capsAt(catalog.get(ids.offers[i])!.caps, new Date()).map((c) => c.slot),
    });

  const state = async (searchId: string) => {
    const s = (
      await ds.query('SELECT state_version, result_order, processing_done_at, offer_decisions FROM searches WHERE id = $1', [searchId])
    )[0];
    const calls = await ds.query('SELECT partner_id, status FROM search_partner_calls WHERE search_id = $1 ORDER BY partner_id', [
      searchId,
    ]);
    const results = await ds.query('SELECT offer_id FROM results WHERE search_id = $1', [searchId]);
    return {
      ...s,
      calls: Object.fromEntries(calls.map((c: { partner_id: string; status: string }) => [c.partner_id, c.status])),
      results: results.map((r: { offer_id: string }) => r.offer_id),
    };
  };

  it('an answer merged from an older version writes nothing; merged again from a fresh read it lands', async () => {
    const searchId = await search();
    const a = answer(0, []);
    const b = answer(1, []);
    const first = await repo.saveAnswer(searchId, 1, [a.call], a.change);
    expect(first).toEqual(expect.objectContaining({ version: 2, processingDone: false, order: a.change.order }));

    // B merged onto version 1 too: refused, and nothing of it is written.
    expect(await repo.saveAnswer(searchId, 1, [b.call], b.change)).toBeUndefined();
    let now = await state(searchId);
    expect(now.state_version).toBe(2);
    expect(now.calls[ids.partners[1]]).toBe('pending');
    expect(now.results).toEqual([ids.offers[0]]);
    expect(now.offer_decisions[ids.offers[1]]).toBeUndefined();

    // Read again (what the service does), merge onto the list read, write on that version.
    const ctx = await context(searchId, 1);
    expect([ctx!.version, ctx!.resultOrder, ctx!.shown.map((r) => r.offerId)]).toEqual([2, a.change.order, [ids.offers[0]]]);
    const b2 = answer(1, ctx!.resultOrder);
    expect(await repo.saveAnswer(searchId, ctx!.version, [b2.call], b2.change)).toEqual(
      expect.objectContaining({ version: 3, processingDone: false }),
    );
    now = await state(searchId);
    expect(now.result_order).toEqual(b2.change.order);
    expect(now.calls[ids.partners[1]]).toBe('answered');
  });

  it('a call that took its answer takes no second one, even on the current version', async () => {
    const searchId = await search();
    const a = answer(0, []);
    expect(await repo.saveAnswer(searchId, 1, [a.call], a.change)).toBeDefined();
    const again = answer(0, a.change.order);
    expect(await repo.saveAnswer(searchId, 2, [again.call], again.change)).toBeUndefined();
    expect((await state(searchId)).results).toEqual([ids.offers[0]]);
  });

  it('answers racing on one version: exactly one lands each round; the last call answered makes the search done', async () => {
    const searchId = await search();
    let pending = [0, 1, 2];
    let version = 1;
    let order: string[] = [];
    let rounds = 0;
    while (pending.length > 0) {
      rounds += 1;
      const tries = pending.map((i) => ({ i, ...answer(i, order) }));
      const saved = await Promise.all(tries.map((t) => repo.saveAnswer(searchId, version, [t.call], t.change)));
      const landed = saved.flatMap((m, k) => (m ? [{ meta: m, i: tries[k].i, order: tries[k].change.order }] : []));
      expect(landed).toHaveLength(1);
      ({ version, order } = { version: landed[0].meta.version, order: landed[0].order });
      pending = pending.filter((i) => i !== landed[0].i);
      expect(landed[0].meta.processingDone).toBe(pending.length === 0);
    }
    expect(rounds).toBe(3);
    const now = await state(searchId);
    expect(now.state_version).toBe(4);
    expect(now.result_order).toEqual(order);
    expect(now.results.sort()).toEqual([...ids.offers].sort());
    expect(Object.values(now.calls)).toEqual(['answered', 'answered', 'answered']);
    expect(now.processing_done_at).not.toBeNull();
  });

  it('the answers of several calls in one write: each pending call takes its outcome, one version, done only when no other call is pending; an answered call in the batch takes nothing', async () => {
    const searchId = await search();
    const a = answer(0, []);
    const b = answer(1, a.change.order);
    const both = {
      order: b.change.order,
      decisions: { ...a.change.decisions, ...b.change.decisions },
      added: [...a.change.added, ...b.change.added],
    };
    const failed = { ...b.call, outcome: 'timeout', resultCount: 0, detail: 'no answer within 5000 ms' };
    expect(await repo.saveAnswer(searchId, 1, [a.call, failed], { ...both, order: a.change.order, added: a.change.added })).toEqual(
      expect.objectContaining({ version: 2, processingDone: false }),
    );
    let now = await state(searchId);
    expect([now.calls[ids.partners[0]], now.calls[ids.partners[1]], now.calls[ids.partners[2]]]).toEqual([
      'answered',
      'timeout',
      'pending',
    ]);
    const detail = await ds.query('SELECT detail, result_count FROM search_partner_calls WHERE search_id = $1 AND partner_id = $2', [
      searchId,
      ids.partners[1],
    ]);
    expect(detail).toEqual([{ detail: 'no answer within 5000 ms', result_count: 0 }]);

    // Partner 0 again (answered) with partner 2 (pending): only partner 2's call changes, and the search is done.
    const c = answer(2, a.change.order);
    expect(await repo.saveAnswer(searchId, 2, [answer(0, []).call, c.call], c.change)).toEqual(
      expect.objectContaining({ version: 3, processingDone: true }),
    );
    now = await state(searchId);
    expect([now.calls[ids.partners[0]], now.calls[ids.partners[1]], now.calls[ids.partners[2]]]).toEqual([
      'answered',
      'timeout',
      'answered',
    ]);
    expect(now.results.sort()).toEqual([ids.offers[0], ids.offers[2]].sort());
    expect(now.processing_done_at).not.toBeNull();

    // A batch whose calls are all answered writes nothing.
    expect(await repo.saveAnswer(searchId, 3, [answer(0, []).call, answer(2, []).call], answer(2, []).change)).toBeUndefined();
  });

  /**
   * What an accepted sale of the search's lead (a submit of a result of offer
   * `i`) leaves behind: the lead, its live sale in the search's lead group,
   * and the search's counters and version bumped (as SaleLedger.settle does).
   */
  async function sell(searchId: string, i: number): Promise<void> {
    const resultId = id();
    const leadId = id();
    await appendResults(ds, searchId, [{ id: resultId, offerId: ids.offers[i], expiresAt: new Date(Date.now() + 600_000) }]);
    await ds.query(
      `INSERT INTO leads (id, kind, search_id, result_id, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, lead_group_id)
       VALUES ($1, 'result_submit', $2, $3, $4, $5, $6, $7, '{}', '73.12.44.10', 'accepted', 'ACCEPTED', $2)`,
      [leadId, searchId, resultId, ids.aff, ids.campaign, ids.offers[i], ids.key],
    );
    await ds.query(
      `INSERT INTO sales (lead_id, search_id, lead_group_id, offer_id, school_id, campaign_id, affiliate_id, offer_type, status)
       VALUES ($1, $2, $2, $3, $4, $5, $6, 'shared', 'accepted')`,
      [leadId, searchId, ids.offers[i], ids.schools[i], ids.campaign, ids.aff],
    );
    await ds.query('UPDATE searches SET accepted_count = accepted_count + 1, state_version = state_version + 1 WHERE id = $1', [searchId]);
  }

  it('a sale in between (it bumps the version) sends the answer back to read the new sale state', async () => {
    const searchId = await search();
    await sell(searchId, 2);
    const a = answer(0, []);
    expect(await repo.saveAnswer(searchId, 1, [a.call], a.change)).toBeUndefined();
    const ctx = await context(searchId, 0);
    // Replaces `facts.sale.acceptedCount` 1 (the searches row counter): the sale state read is now the search's live sales.
    expect([ctx!.version, ctx!.facts.liveSales]).toEqual([2, [{ offerId: ids.offers[2], schoolId: ids.schools[2], offerType: 'shared' }]]);
  });
});
