import { DataSource } from 'typeorm';
import { partnersWithContactAtSearch, validateCatalog } from '@lr/domain';
import type { Catalog, CatalogCap, CatalogIssue, ContactAtSearch } from '@lr/domain';
import { CatalogAdminRepository, CatalogRowScope } from '@lr/persistence';
import { CATALOG_KINDS, CatalogTable, TABLES } from './catalog-tables';
import { emptyCounts, Row, syncRows, SyncCounts } from './sync-rows';

export type CatalogSummary = Record<CatalogTable, SyncCounts>;

/** `contactAtSearch`: the file's partners configured to receive contact data at search (operators are told). */
export type ApplyOutcome =
  { ok: true; summary: CatalogSummary; contactAtSearch: ContactAtSearch[] } | { ok: false; issues: CatalogIssue[] };
export type ValidateOutcome = { ok: true; contactAtSearch: ContactAtSearch[] } | { ok: false; issues: CatalogIssue[] };

/**
 * Validates a parsed catalog file against itself and the database, then writes
 * it, all in one transaction under an advisory lock (two applies never
 * interleave, and what validation saw is what is written to). Nothing is
 * written when there is any issue.
 */
export async function applyCatalog(ds: DataSource, input: unknown): Promise<ApplyOutcome> {
  return CatalogAdminRepository.underApplyLock(ds, async (repo): Promise<ApplyOutcome> => {
    const { catalog, issues } = validateCatalog(input, await repo.knownRefs());
    if (!catalog) return { ok: false, issues };
    return { ok: true, summary: await writeCatalog(repo, catalog), contactAtSearch: partnersWithContactAtSearch(catalog.partners) };
  });
}

/** What apply would check, against the same database, writing nothing. */
export async function validateCatalogFile(ds: DataSource, input: unknown): Promise<ValidateOutcome> {
  return CatalogAdminRepository.underApplyLock(ds, async (repo): Promise<ValidateOutcome> => {
    const { catalog, issues } = validateCatalog(input, await repo.knownRefs());
    return catalog ? { ok: true, contactAtSearch: partnersWithContactAtSearch(catalog.partners) } : { ok: false, issues };
  });
}

async function writeCatalog(repo: CatalogAdminRepository, c: Catalog): Promise<CatalogSummary> {
  const summary = Object.fromEntries(CATALOG_KINDS.map((k) => [k, emptyCounts()])) as CatalogSummary;
  const upsert = (kind: 'affiliates' | 'schools' | 'partners' | 'offers' | 'campaigns', rows: Row[]) =>
    rows.length === 0
      ? Promise.resolve()
      : syncRows(repo, TABLES[kind], { id: rows.map((r) => r.id as string) }, rows, {
          removeMissing: false,
          counts: summary[kind],
        });

  await upsert(
    'affiliates',
    c.affiliates.map((a) => ({ id: a.id, name: a.name, status: a.status, dupe_check: a.dupe_check })),
  );
  await upsert(
    'schools',
    c.schools.map((s) => ({ id: s.id, name: s.name, logo_url: s.logo_url })),
  );
  await upsert(
    'partners',
    c.partners.map((p) => ({
      id: p.id,
      name: p.name,
      adapter: p.adapter,
      base_url: p.base_url,
      timeout_ms: p.timeout_ms,
      settings: p.settings,
    })),
  );
  await upsert(
    'offers',
    c.offers.map((o) => ({
      id: o.id,
      name: o.name,
      school_id: o.school_id,
      source: o.source,
      partner_id: o.partner_id,
      external_id: o.external_id,
      offer_type: o.offer_type,
      status: o.status,
      priority: o.priority,
      price: o.price,
      tcpa_text: o.tcpa_text,
      result_ttl_seconds: o.result_ttl_seconds,
      duplicate_window_days: o.duplicate_window_days,
      eligibility: o.eligibility,
      delivery: o.delivery,
      returns: o.returns,
    })),
  );
  for (const o of c.offers) {
    const scope = { offer_id: o.id };
    await syncRows(
      repo,
      TABLES.programs,
      scope,
      o.programs.map((p, position) => ({ offer_id: o.id, value: p.value, label: p.label, eligibility: p.eligibility, position })),
      { removeMissing: true, counts: summary.programs },
    );
    await syncRows(
      repo,
      TABLES.questions,
      scope,
      o.form_fields.map((f, position) => ({
        offer_id: o.id,
        name: f.name,
        label: f.label,
        type: f.type,
        required: f.required,
        required_when: f.required_when,
        options: f.options,
        position,
      })),
      { removeMissing: true, counts: summary.questions },
    );
    await syncCaps(repo, { offer_id: o.id, campaign_id: null }, o.id, null, o.caps, summary.caps);
  }

  await upsert(
    'campaigns',
    c.campaigns.map((k) => ({ id: k.id, affiliate_id: k.affiliate_id, name: k.name, status: k.status })),
  );
  for (const k of c.campaigns) {
    // Removing a campaign offer also removes its caps (ON DELETE CASCADE); count them first.
    summary.caps.removed += await repo.countCampaignCapsOutside(
      k.id,
      k.offers.map((co) => co.offer_id),
    );
    await syncRows(
      repo,
      TABLES.campaign_offers,
      { campaign_id: k.id },
      k.offers.map((co, position) => ({
        campaign_id: k.id,
        offer_id: co.offer_id,
        payout: co.payout,
        program_payouts: co.program_payouts,
        position,
      })),
      { removeMissing: true, counts: summary.campaign_offers },
    );
    for (const co of k.offers) {
      await syncCaps(repo, { campaign_id: k.id, offer_id: co.offer_id }, co.offer_id, k.id, co.caps, summary.caps);
    }
  }
  return summary;
}

function syncCaps(
  repo: CatalogAdminRepository,
  scope: CatalogRowScope,
  offerId: string,
  campaignId: string | null,
  caps: CatalogCap[],
  counts: SyncCounts,
): Promise<void> {
  return syncRows(
    repo,
    TABLES.caps,
    scope,
    caps.map((cap) => ({ offer_id: offerId, campaign_id: campaignId, period: cap.period, limit: cap.limit, timezone: cap.timezone })),
    { removeMissing: true, counts },
  );
}
