import type { PartnerRef } from '@lr/contracts';
import {
  CampaignOffer,
  campaignOfferFromCatalog,
  CampaignTerms,
  campaignTermsFrom,
  campaignTermsOf,
  Catalog,
  underCampaign,
} from '@lr/domain';
import type { CatalogSimulationRepository } from '@lr/persistence';

/** The campaigns a proposed file touches, each with its offers as the catalog holds them now and as they would be once the file is applied. */
export interface ComparedCatalogs {
  campaigns: Array<{ id: string; name: string }>;
  current: Map<string, CampaignOffer[]>;
  proposed: Map<string, CampaignOffer[]>;
}

/**
 * The catalog after `catalog apply <file>`, in memory: the file describes
 * each of its records completely and leaves the rest as it is (CATALOG.md),
 * so a campaign of the file takes the file's offer list and terms, an offer
 * of the file its definition, a school or partner its name and settings; the
 * rest comes from the database. Touched: the file's campaigns and every
 * campaign that has an offer of the file now.
 */
export async function compareCatalogs(repo: CatalogSimulationRepository, file: Catalog): Promise<ComparedCatalogs> {
  const fileOffers = new Map(file.offers.map((o) => [o.id, o]));
  const fileCampaigns = new Map(file.campaigns.map((c) => [c.id, c]));
  const ids = [...new Set([...fileCampaigns.keys(), ...(await repo.campaignsWithOffers([...fileOffers.keys()]))])].sort();
  const current = new Map<string, CampaignOffer[]>();
  for (const id of ids) current.set(id, await repo.campaignOffers(id));

  const listed = (c: string) => fileCampaigns.get(c)?.offers.map((co) => co.offer_id) ?? [];
  const fromDatabase = [...new Set(ids.flatMap(listed))].filter((id) => !fileOffers.has(id));
  const dbOffers = new Map((await repo.offersById(fromDatabase)).map((o) => [o.offerId, o]));
  const dbSchools = await repo.schools(file.offers.map((o) => o.school_id));
  const dbPartners = await repo.partners(file.offers.flatMap((o) => (o.partner_id ? [o.partner_id] : [])));
  const fileSchools = new Map(file.schools.map((s) => [s.id, { name: s.name, logoUrl: s.logo_url }]));
  const filePartners = new Map<string, PartnerRef>(
    file.partners.map((p) => [
      p.id,
      {
        id: p.id,
        name: p.name,
        adapter: p.adapter,
        baseUrl: p.base_url,
        timeoutMs: p.timeout_ms,
        ...(p.settings ? { settings: { ...p.settings } } : {}),
      },
    ]),
  );
  const schoolOf = (id: string) => fileSchools.get(id) ?? dbSchools.get(id) ?? { name: '', logoUrl: null };
  const partnerOf = (id: string | null) => (id === null ? null : (filePartners.get(id) ?? dbPartners.get(id) ?? null));

  const proposedOffer = (campaignId: string, offerId: string, terms: CampaignTerms): CampaignOffer | undefined => {
    const fo = fileOffers.get(offerId);
    if (fo) return campaignOfferFromCatalog(fo, schoolOf(fo.school_id), partnerOf(fo.partner_id), campaignId, terms);
    const base = current.get(campaignId)?.find((o) => o.offerId === offerId) ?? dbOffers.get(offerId);
    if (!base) return undefined;
    const school = fileSchools.get(base.schoolId);
    const partner = base.partner ? filePartners.get(base.partner.id) : undefined;
    return {
      ...underCampaign(base, campaignId, terms),
      ...(school ? { schoolName: school.name, schoolLogoUrl: school.logoUrl } : {}),
      ...(partner ? { partner } : {}),
    };
  };

  const proposed = new Map<string, CampaignOffer[]>();
  for (const id of ids) {
    const fc = fileCampaigns.get(id);
    const list = fc
      ? fc.offers.map((co) => ({ offerId: co.offer_id, terms: campaignTermsOf(id, co) }))
      : (current.get(id) ?? []).map((o) => ({ offerId: o.offerId, terms: campaignTermsFrom(o) }));
    proposed.set(
      id,
      list.flatMap(({ offerId, terms }) => proposedOffer(id, offerId, terms) ?? []),
    );
  }
  const dbNames = await repo.campaignNames(ids);
  return { campaigns: ids.map((id) => ({ id, name: fileCampaigns.get(id)?.name ?? dbNames.get(id) ?? '' })), current, proposed };
}
