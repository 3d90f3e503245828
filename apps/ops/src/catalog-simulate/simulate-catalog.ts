import { amount, CampaignOffer, Cents, SALE_REFUSALS, validateCatalog } from '@lr/domain';
import type { CatalogIssue } from '@lr/domain';
import { CatalogSimulationRepository, SearchCursor, SimulatedSearch, SimulationScope } from '@lr/persistence';
import { DataSource } from 'typeorm';
import { compareCatalogs } from './proposed-catalog';
import { RankKeys, replaySearch, PARTNER_UNKNOWN } from './replay';

/** Which past searches: the newest `last`, or those created in [from, to). */
export type SimulationWindow = { last: number } | { from: Date; to: Date };

/** Searches read per page (keyset on created_at, id); the next page is read while one is replayed. */
export const PAGE_SIZE = 2000;
/** Search ids listed per offer and direction in the JSON (the counts are always exact). */
export const LISTED_IDS = 1000;

export interface OfferChange {
  campaign: { id: string; name: string };
  offer: { id: string; name: string };
  shown_before: number;
  shown_after: number;
  lost: number;
  gained: number;
  /** Dollars: the sum of the caller's payouts of the results shown (the result's best program payout). */
  payout_before: number;
  payout_after: number;
  payout_change: number;
  /** Dollars: what buyers would pay for the results shown (own offers' price), were each sold once. */
  price_before: number;
  price_after: number;
  price_change: number;
  lost_search_ids: string[];
  gained_search_ids: string[];
  /** True when more searches lost or gained it than are listed. */
  ids_truncated: boolean;
}

export interface Simulation {
  window: { last: number | null; from: string | null; to: string | null };
  campaigns: Array<{ id: string; name: string }>;
  searches: number;
  searches_changed: number;
  totals: {
    shown_before: number;
    shown_after: number;
    payout_before: number;
    payout_after: number;
    payout_change: number;
    price_before: number;
    price_after: number;
    price_change: number;
  };
  /** Every offer of a touched campaign (before or after), by campaign, then the most changed first. */
  offers: OfferChange[];
  /** The rules behind the changes, most first: `lost` counts results a rule now leaves out, `gained` results a rule no longer left out. */
  rules: Array<{ rule: string; lost: number; gained: number }>;
  /** Partner offers the proposed catalog would ask about but the search did not: their partner's answer is unknown, counted as not shown. */
  partner_unknown: number;
  seconds: number;
}

export type SimulationOutcome = { ok: true; simulation: Simulation } | { ok: false; issues: CatalogIssue[] };

interface Tally {
  campaignId: string;
  offerId: string;
  name: string;
  shownBefore: number;
  shownAfter: number;
  lost: string[];
  gained: string[];
  lostCount: number;
  gainedCount: number;
  payoutBefore: number;
  payoutAfter: number;
  priceBefore: number;
  priceAfter: number;
}

/**
 * `catalog simulate`: validates a proposed catalog file as `catalog apply`
 * does, then replays the stored leads of past searches of the campaigns it
 * touches through the search's qualify and ranking code (replaySearch),
 * once against the catalog as it is and once as the file would make it, and
 * counts per campaign and offer what changes. One read-only snapshot;
 * searches are read a page at a time, never all at once.
 */
export async function simulateCatalog(
  ds: DataSource,
  input: unknown,
  window: SimulationWindow,
  onProgress: (done: number, total: number) => void = () => undefined,
): Promise<SimulationOutcome> {
  const started = process.hrtime.bigint();
  return CatalogSimulationRepository.snapshot(ds, async (repo): Promise<SimulationOutcome> => {
    const { catalog, issues } = validateCatalog(input, await repo.knownRefs());
    if (!catalog) return { ok: false, issues };
    const compared = await compareCatalogs(repo, catalog);
    const scope: SimulationScope = {
      campaignIds: compared.campaigns.map((c) => c.id),
      from: 'from' in window ? window.from : null,
      to: 'to' in window ? window.to : null,
      start: null,
    };
    if ('last' in window) scope.start = await repo.startOfLast(scope, window.last);
    const total = await repo.count(scope);
    onProgress(0, total);

    const tallies = new Map<string, Tally>();
    const tally = (campaignId: string, o: CampaignOffer) => {
      const key = `${campaignId}|${o.offerId}`;
      let t = tallies.get(key);
      if (!t) {
        t = {
          campaignId,
          offerId: o.offerId,
          name: o.name,
          shownBefore: 0,
          shownAfter: 0,
          lost: [],
          gained: [],
          lostCount: 0,
          gainedCount: 0,
          payoutBefore: 0,
          payoutAfter: 0,
          priceBefore: 0,
          priceAfter: 0,
        };
        tallies.set(key, t);
      }
      return t;
    };
    for (const c of compared.campaigns)
      for (const o of [...compared.current.get(c.id)!, ...compared.proposed.get(c.id)!]) tally(c.id, o).name = o.name;
    const rules = new Map<string, { lost: number; gained: number }>();
    const rule = (r: string) => rules.get(r) ?? (rules.set(r, { lost: 0, gained: 0 }), rules.get(r)!);
    const before = new RankKeys();
    const after = new RankKeys();
    const partnerOfferIds = [
      ...new Set(
        [...compared.current.values(), ...compared.proposed.values()]
          .flat()
          .filter((o) => o.source === 'partner')
          .map((o) => o.offerId),
      ),
    ];
    let searches = 0;
    let changed = 0;
    let partnerUnknown = 0;

    const replay = (s: SimulatedSearch) => {
      const was = replaySearch(compared.current.get(s.campaignId) ?? [], s, before);
      const will = replaySearch(compared.proposed.get(s.campaignId) ?? [], s, after);
      let differs = false;
      for (const id of new Set([...was.keys(), ...will.keys()])) {
        const b = was.get(id);
        const a = will.get(id);
        const t = tallies.get(`${s.campaignId}|${id}`)!;
        if (b?.shown) {
          t.shownBefore++;
          t.payoutBefore += b.payout ?? 0;
          t.priceBefore += b.price ?? 0;
        }
        if (a?.shown) {
          t.shownAfter++;
          t.payoutAfter += a.payout ?? 0;
          t.priceAfter += a.price ?? 0;
        }
        if (a?.rule === PARTNER_UNKNOWN) partnerUnknown++;
        if (!!b?.shown === !!a?.shown) continue;
        differs = true;
        if (b?.shown) {
          if (t.lost.length < LISTED_IDS) t.lost.push(s.id);
          t.lostCount++;
          rule(a?.rule ?? 'not_on_campaign').lost++;
        } else {
          if (t.gained.length < LISTED_IDS) t.gained.push(s.id);
          t.gainedCount++;
          rule(b?.rule ?? 'not_on_campaign').gained++;
        }
      }
      if (differs) changed++;
      searches++;
    };

    // Keyset pages, the next one read while this one is replayed.
    const keptReasons = [...SALE_REFUSALS];
    const pageAfter = (after: SearchCursor | null) => repo.page(scope, after, PAGE_SIZE, keptReasons, partnerOfferIds);
    let next = pageAfter(null);
    for (;;) {
      const page = await next;
      if (page.length === 0) break;
      const last = page[page.length - 1];
      next = page.length < PAGE_SIZE ? Promise.resolve([]) : pageAfter({ createdAt: last.createdAt, id: last.id });
      for (const s of page) {
        if ('last' in window && searches >= window.last) break;
        replay(s);
      }
      onProgress(searches, total);
      if ('last' in window && searches >= window.last) {
        await next;
        break;
      }
    }

    const dollars = (c: number) => amount(c as Cents);
    const names = new Map(compared.campaigns.map((c) => [c.id, c]));
    const offers = [...tallies.values()]
      .map((t): OfferChange => ({
        campaign: names.get(t.campaignId)!,
        offer: { id: t.offerId, name: t.name },
        shown_before: t.shownBefore,
        shown_after: t.shownAfter,
        lost: t.lostCount,
        gained: t.gainedCount,
        payout_before: dollars(t.payoutBefore),
        payout_after: dollars(t.payoutAfter),
        payout_change: dollars(t.payoutAfter - t.payoutBefore),
        price_before: dollars(t.priceBefore),
        price_after: dollars(t.priceAfter),
        price_change: dollars(t.priceAfter - t.priceBefore),
        lost_search_ids: t.lost,
        gained_search_ids: t.gained,
        ids_truncated: t.lostCount > t.lost.length || t.gainedCount > t.gained.length,
      }))
      .sort(
        (a, b) =>
          a.campaign.name.localeCompare(b.campaign.name) ||
          a.campaign.id.localeCompare(b.campaign.id) ||
          b.lost + b.gained - (a.lost + a.gained) ||
          a.offer.name.localeCompare(b.offer.name),
      );
    const sum = (f: (t: Tally) => number) => [...tallies.values()].reduce((n, t) => n + f(t), 0);
    const payoutBefore = sum((t) => t.payoutBefore);
    const payoutAfter = sum((t) => t.payoutAfter);
    const priceBefore = sum((t) => t.priceBefore);
    const priceAfter = sum((t) => t.priceAfter);
    return {
      ok: true,
      simulation: {
        window:
          'last' in window
            ? { last: window.last, from: null, to: null }
            : { last: null, from: window.from.toISOString(), to: window.to.toISOString() },
        campaigns: compared.campaigns,
        searches,
        searches_changed: changed,
        totals: {
          shown_before: sum((t) => t.shownBefore),
          shown_after: sum((t) => t.shownAfter),
          payout_before: dollars(payoutBefore),
          payout_after: dollars(payoutAfter),
          payout_change: dollars(payoutAfter - payoutBefore),
          price_before: dollars(priceBefore),
          price_after: dollars(priceAfter),
          price_change: dollars(priceAfter - priceBefore),
        },
        offers,
        rules: [...rules.entries()]
          .map(([r, n]) => ({ rule: r, ...n }))
          .sort((a, b) => b.lost + b.gained - (a.lost + a.gained) || a.rule.localeCompare(b.rule)),
        partner_unknown: partnerUnknown,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
      },
    };
  });
}
