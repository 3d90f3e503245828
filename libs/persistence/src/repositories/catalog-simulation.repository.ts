import type { CampaignOffer, KnownCatalogRefs, Lead } from '@lr/domain';
import type { PartnerRef } from '@lr/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { LEGACY_END } from '../partitions/partition-days';
import { campaignOffersOf, offersByIdOf } from '../queries/catalog-offers';
import { knownCatalogRefs } from '../queries/catalog-refs';
import { run, statement, type WithDocuments } from '../queries/sql';

/**
 * The read model behind `ops catalog simulate` (docs/operator-cli.md): the
 * catalog as it is, what a proposed file refers to, and the stored leads of
 * past searches with what their moment decided that a replay cannot decide
 * again (sale-time refusals, partners' outcomes). Everything is read in one
 * read-only snapshot; searches are streamed by keyset on (created_at, id).
 */

/** Which searches are replayed: live searches of these campaigns, in [from, to), from `start` (inclusive) on. */
export interface SimulationScope {
  campaignIds: string[];
  from: Date | null;
  to: Date | null;
  start: SearchCursor | null;
}

/** Where a keyset page starts (exclusive): the last search of the page before. */
export interface SearchCursor {
  createdAt: Date;
  id: string;
}

/** A stored search as the replay needs it. */
export interface SimulatedSearch {
  id: string;
  campaignId: string;
  createdAt: Date;
  lead: Lead;
  /**
   * Per offer, what the search's moment decided that the replay takes as it
   * was: `shown`, `school_already_shown`, a partner outcome (`partner_timeout`,
   * …) or a sale-time refusal as `reason` or `reason:detail`.
   */
  kept: Record<string, string>;
}

/** Day bounds that let PostgreSQL skip day partitions outside the window (the kept and legacy partitions may hold any time). */
function dayBounds(scope: SimulationScope): [string, string] {
  const day = (t: Date | null, shift: number, fallback: string) =>
    t ? new Date(t.getTime() + shift * 86_400_000).toISOString().slice(0, 10) : fallback;
  return [day(scope.from, -1, '0001-01-01'), day(scope.to, 1, '9999-12-31')];
}

/** The scope's condition on `searches s`; parameters $1 to $7 (scopeParams). Bounds on created_at are plain comparisons, so each page starts in the index where the last ended. */
const IN_SCOPE = `s.campaign_id = ANY($1::uuid[]) AND NOT s.is_test
   AND s.created_at >= COALESCE($2::timestamptz, '-infinity') AND s.created_at < COALESCE($3::timestamptz, 'infinity')
   AND (s.part_day BETWEEN $4::date AND $5::date OR s.part_day < DATE '${LEGACY_END}')
   AND s.created_at >= COALESCE($6::timestamptz, '-infinity') AND ($6::timestamptz IS NULL OR (s.created_at, s.id) >= ($6, $7::uuid))`;

function scopeParams(scope: SimulationScope): unknown[] {
  const from = scope.start && (!scope.from || scope.start.createdAt > scope.from) ? scope.start.createdAt : scope.from;
  return [
    scope.campaignIds,
    scope.from,
    scope.to,
    ...dayBounds({ ...scope, from }),
    scope.start?.createdAt ?? null,
    scope.start?.id ?? null,
  ];
}

/**
 * A page of searches with what the replay keeps of each: from the stored
 * decisions the sale-time refusals ($8), every partner outcome, and whether
 * a partner offer of $9 was shown (a search stored before decisions left out
 * shown offers says so there) or its school already was; and each partner
 * result shown (`result_partner`, the partner's id and external id of its
 * offer), as `shown`.
 */
const SEARCH_PAGE = statement(
  'simulationPage',
  `SELECT s.id, s.campaign_id, s.created_at, s.lead,
          COALESCE((SELECT jsonb_object_agg(d.key, CASE WHEN (d.value->>'shown')::boolean THEN 'shown'
                                                         ELSE (d.value->>'reason') || COALESCE(':' || (d.value->>'detail'), '') END)
                      FROM jsonb_each(s.offer_decisions) d
                     WHERE (d.value->>'reason') = ANY($8::text[]) OR (d.value->>'reason') LIKE 'partner\\_%'
                        OR (d.key = ANY($9::text[]) AND ((d.value->>'shown')::boolean OR (d.value->>'reason') = 'school_already_shown'))), '{}')
          || COALESCE((SELECT jsonb_object_agg(o.id::text, 'shown')
                         FROM jsonb_each(s.result_partner) r
                         JOIN offers o ON o.partner_id = (r.value->>'partnerId')::uuid AND o.external_id = r.value->>'externalId'), '{}') AS kept
     FROM searches s
    WHERE ${IN_SCOPE}
      AND s.created_at >= COALESCE($10::timestamptz, '-infinity') AND ($10::timestamptz IS NULL OR (s.created_at, s.id) > ($10, $11::uuid))
    ORDER BY s.created_at, s.id
    LIMIT $12`,
);

const CAMPAIGNS_WITH_OFFERS = statement(
  'simulationCampaignsWithOffers',
  `SELECT DISTINCT campaign_id FROM campaign_offers WHERE offer_id = ANY($1::uuid[]) ORDER BY campaign_id`,
);
const CAMPAIGN_NAMES = statement('simulationCampaignNames', `SELECT id, name FROM campaigns WHERE id = ANY($1::uuid[])`);
const SCHOOLS = statement('simulationSchools', `SELECT id, name, logo_url FROM schools WHERE id = ANY($1::uuid[])`);
const PARTNERS = statement(
  'simulationPartners',
  `SELECT id, name, adapter, base_url, timeout_ms, settings FROM partners WHERE id = ANY($1::uuid[])`,
);
const START_OF_LAST = statement(
  'simulationStartOfLast',
  `SELECT s.id, s.created_at FROM searches s WHERE ${IN_SCOPE} ORDER BY s.created_at DESC, s.id DESC OFFSET $8 LIMIT 1`,
);
const COUNT = statement('simulationCount', `SELECT count(*) AS n FROM searches s WHERE ${IN_SCOPE}`);

export class CatalogSimulationRepository {
  private constructor(private readonly em: EntityManager) {}

  /** Runs `work` in one read-only snapshot (REPEATABLE READ): nothing it does can write. */
  static snapshot<T>(ds: DataSource, work: (repo: CatalogSimulationRepository) => Promise<T>): Promise<T> {
    return ds.transaction('REPEATABLE READ', async (em) => {
      await em.query('SET TRANSACTION READ ONLY');
      return work(new CatalogSimulationRepository(em));
    });
  }

  /** What `catalog apply` validates a file against. */
  knownRefs(): Promise<KnownCatalogRefs> {
    return knownCatalogRefs(this.em);
  }

  /** The campaigns that have any of these offers now. */
  async campaignsWithOffers(offerIds: readonly string[]): Promise<string[]> {
    return (await run(this.em, CAMPAIGNS_WITH_OFFERS, [offerIds])).map((r) => r.campaign_id);
  }

  /** A campaign's offers now, in its order (campaignOffersOf, as the services read them). */
  campaignOffers(campaignId: string): Promise<CampaignOffer[]> {
    return campaignOffersOf(this.em, campaignId);
  }

  /** Offers as the catalog holds them now, outside any campaign. */
  offersById(offerIds: readonly string[]): Promise<CampaignOffer[]> {
    return offersByIdOf(this.em, offerIds);
  }

  async campaignNames(ids: readonly string[]): Promise<Map<string, string>> {
    return new Map((await run(this.em, CAMPAIGN_NAMES, [ids])).map((r) => [r.id, r.name]));
  }

  async schools(ids: readonly string[]): Promise<Map<string, { name: string; logoUrl: string | null }>> {
    return new Map((await run(this.em, SCHOOLS, [ids])).map((r) => [r.id, { name: r.name, logoUrl: r.logo_url }]));
  }

  async partners(ids: readonly string[]): Promise<Map<string, PartnerRef>> {
    const rows = (await run(this.em, PARTNERS, [ids])) as Array<
      WithDocuments<'simulationPartners', { settings: Record<string, unknown> | null }>
    >;
    return new Map(
      rows.map((r) => [
        r.id,
        {
          id: r.id,
          name: r.name,
          adapter: r.adapter,
          baseUrl: r.base_url,
          timeoutMs: r.timeout_ms,
          ...(r.settings ? { settings: r.settings } : {}),
        },
      ]),
    );
  }

  /** The oldest of the newest `n` searches in scope (where `--last n` starts); null when there are fewer. */
  async startOfLast(scope: SimulationScope, n: number): Promise<SearchCursor | null> {
    const rows = await run(this.em, START_OF_LAST, [...scopeParams(scope), n - 1]);
    return rows[0] ? { createdAt: new Date(rows[0].created_at), id: rows[0].id } : null;
  }

  /** How many searches are in scope. */
  async count(scope: SimulationScope): Promise<number> {
    const [row] = await run(this.em, COUNT, scopeParams(scope));
    return Number(row.n ?? 0);
  }

  /**
   * One page of searches in scope after `after` (exclusive; null: from the
   * start), oldest first. `keptReasons` are the stored refusals to hand back
   * (the sale-time ones), besides every partner outcome and, for
   * `partnerOfferIds`, whether their result was shown.
   */
  async page(
    scope: SimulationScope,
    after: SearchCursor | null,
    limit: number,
    keptReasons: readonly string[],
    partnerOfferIds: readonly string[],
  ): Promise<SimulatedSearch[]> {
    const rows = (await run(this.em, SEARCH_PAGE, [
      ...scopeParams(scope),
      keptReasons,
      partnerOfferIds,
      after?.createdAt ?? null,
      after?.id ?? null,
      limit,
    ])) as Array<WithDocuments<'simulationPage', { lead: Lead; kept: Record<string, string> | null }>>;
    return rows.map((r) => ({ id: r.id, campaignId: r.campaign_id, createdAt: new Date(r.created_at), lead: r.lead, kept: r.kept ?? {} }));
  }
}
