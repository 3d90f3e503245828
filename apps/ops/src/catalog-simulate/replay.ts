import { CampaignOffer, Cents, judgeOffers, mergeResults, ownRankKeys, RankCandidate, searchOutcome, testMode } from '@lr/domain';
import type { SimulatedSearch } from '@lr/persistence';

/** One offer of a replayed search: shown, or the rule that left it out; what a shown result pays and costs. */
export interface ReplayedOffer {
  shown: boolean;
  /** Why it is not shown (`not_eligible (states)`, `cap_reached`, `school_already_shown`, `partner_timeout`, …); null when shown. */
  rule: string | null;
  payout: Cents | undefined;
  price: Cents | null;
}

/** A partner offer the search did not ask about at the time: what its partner would have answered is unknown. */
export const PARTNER_UNKNOWN = 'partner_not_asked_at_the_time';

/** Rank keys per offer and qualifying programs, made once per catalog (the same keys `ownResult` ranks by). */
export class RankKeys {
  private readonly memo = new Map<CampaignOffer, Map<string, RankCandidate>>();

  of = (offer: CampaignOffer, programs: readonly string[]): RankCandidate => {
    let byPrograms = this.memo.get(offer);
    if (!byPrograms) this.memo.set(offer, (byPrograms = new Map()));
    const key = programs.join('\u0000');
    let c = byPrograms.get(key);
    if (!c) byPrograms.set(key, (c = ownRankKeys(offer, programs)));
    return c;
  };
}

const ruleOf = (v: { refusal: string; detail?: string }) => (v.detail ? `${v.refusal} (${v.detail})` : v.refusal);

/**
 * A stored search replayed against a catalog's offers for its campaign, with
 * the search's own code (libs/domain judgeOffers): the offer's and programs'
 * eligibility on the stored lead at the search's time, then what a live
 * search shows of it (searchOutcome: ranking, one school per search). What the moment
 * decided and no catalog changes is taken as stored: a sale-time refusal
 * (caps, duplicates, sale state: their facts are of that moment), and a
 * partner's answer; a partner result that came in is ranked after the own
 * results, as the merge adds it (at the campaign's payout: the partner's
 * programs are not replayed).
 */
export function replaySearch(offers: readonly CampaignOffer[], s: SimulatedSearch, keys: RankKeys): Map<string, ReplayedOffer> {
  // Only live searches are replayed (CatalogSimulationRepository's scope).
  const verdicts = judgeOffers(offers, s.lead, { kind: 'catalog' }, s.createdAt, testMode(false)).replay((offerId) => {
    const kept = s.kept[offerId];
    if (kept === undefined) return undefined;
    const [refusal, detail] = kept.split(':');
    return { refusal, detail };
  });
  const outcome = searchOutcome(offers, verdicts, 'live', keys.of);
  const out = new Map<string, ReplayedOffer>();
  const partnerResults: RankCandidate[] = [];
  for (const o of offers) {
    const x = outcome.outcomes.get(o.offerId)!;
    if (x.kind === 'shown')
      out.set(o.offerId, { shown: true, rule: null, payout: x.candidate.payout as Cents | undefined, price: o.price });
    else if (x.kind === 'refused') out.set(o.offerId, { shown: false, rule: ruleOf(x.verdict), payout: undefined, price: null });
    else if (x.kind === 'school_already_shown')
      out.set(o.offerId, { shown: false, rule: 'school_already_shown', payout: undefined, price: null });
    else {
      const kept = s.kept[o.offerId];
      if (kept === 'shown' || kept === 'school_already_shown') partnerResults.push(keys.of(o, []));
      else
        out.set(o.offerId, {
          shown: false,
          rule: kept === undefined ? PARTNER_UNKNOWN : kept.split(':')[0],
          payout: undefined,
          price: null,
        });
    }
  }
  if (partnerResults.length > 0) {
    const added = new Set(mergeResults(outcome.shown, partnerResults, 'live').added);
    const byId = new Map(offers.map((o) => [o.offerId, o]));
    for (const c of partnerResults) {
      out.set(
        c.offerId,
        added.has(c)
          ? { shown: true, rule: null, payout: c.payout as Cents | undefined, price: byId.get(c.offerId)!.price }
          : { shown: false, rule: 'school_already_shown', payout: undefined, price: null },
      );
    }
  }
  return out;
}
