import type { EligibilityRules } from '@lr/domain';
import type { FormField } from '@lr/contracts';
import type { Queryable } from './queryable';

/** One offer on a campaign, with everything a search needs to check it and to show it. */
export interface CampaignOfferRecord {
  offerId: string;
  name: string;
  schoolId: string;
  schoolName: string;
  schoolLogoUrl: string | null;
  source: 'own' | 'partner';
  offerType: 'shared' | 'exclusive' | 'true_exclusive';
  status: 'active' | 'paused';
  priority: number;
  tcpaText: string | null;
  resultTtlSeconds: number;
  duplicateWindowDays: number;
  eligibility: EligibilityRules;
  programs: Array<{ value: string; label: string; eligibility: EligibilityRules }>;
  formFields: FormField[];
  /** The campaign's payout terms for this offer (the caller's payout). */
  payout: number | null;
  programPayouts: Record<string, number> | null;
  externalId: string | null;
  partner: { id: string; name: string; adapter: string; baseUrl: string; timeoutMs: number } | null;
}

interface Row {
  offer_id: string;
  name: string;
  school_id: string;
  school_name: string;
  logo_url: string | null;
  source: 'own' | 'partner';
  offer_type: CampaignOfferRecord['offerType'];
  status: 'active' | 'paused';
  priority: number;
  tcpa_text: string | null;
  result_ttl_seconds: number;
  duplicate_window_days: number;
  eligibility: EligibilityRules;
  programs: CampaignOfferRecord['programs'];
  questions: Array<{
    name: string;
    label: string | null;
    type: string;
    required: boolean;
    required_when: { program_ids: string[] } | null;
    options: Array<{ value: string; label: string }> | null;
  }>;
  payout: string | null;
  program_payouts: Record<string, number> | null;
  external_id: string | null;
  partner_id: string | null;
  partner_name: string | null;
  adapter: string | null;
  base_url: string | null;
  timeout_ms: number | null;
}

/**
 * Every offer on a campaign (paused ones too: the caller records why they were
 * left out), in the campaign's order, with programs and questions in catalog
 * order. One round trip.
 */
export async function loadCampaignOffers(db: Queryable, campaignId: string): Promise<CampaignOfferRecord[]> {
  const rows: Row[] = await db.query(
    `SELECT o.id AS offer_id, o.name, o.school_id, s.name AS school_name, s.logo_url, o.source, o.offer_type, o.status,
            o.priority, o.tcpa_text, o.result_ttl_seconds, o.duplicate_window_days, o.eligibility,
            COALESCE((SELECT json_agg(json_build_object('value', pr.value, 'label', pr.label, 'eligibility', pr.eligibility)
                                      ORDER BY pr.position)
                        FROM programs pr WHERE pr.offer_id = o.id), '[]') AS programs,
            COALESCE((SELECT json_agg(json_build_object('name', q.name, 'label', q.label, 'type', q.type, 'required', q.required,
                                                        'required_when', q.required_when, 'options', q.options)
                                      ORDER BY q.position)
                        FROM questions q WHERE q.offer_id = o.id), '[]') AS questions,
            co.payout, co.program_payouts, o.external_id,
            p.id AS partner_id, p.name AS partner_name, p.adapter, p.base_url, p.timeout_ms
       FROM campaign_offers co
       JOIN offers o ON o.id = co.offer_id
       JOIN schools s ON s.id = o.school_id
       LEFT JOIN partners p ON p.id = o.partner_id
      WHERE co.campaign_id = $1
      ORDER BY co.position`,
    [campaignId],
  );
  return rows.map(toRecord);
}

function toRecord(r: Row): CampaignOfferRecord {
  return {
    offerId: r.offer_id,
    name: r.name,
    schoolId: r.school_id,
    schoolName: r.school_name,
    schoolLogoUrl: r.logo_url,
    source: r.source,
    offerType: r.offer_type,
    status: r.status,
    priority: r.priority,
    tcpaText: r.tcpa_text,
    resultTtlSeconds: r.result_ttl_seconds,
    duplicateWindowDays: r.duplicate_window_days,
    eligibility: r.eligibility ?? {},
    programs: r.programs.map((p) => ({ value: p.value, label: p.label, eligibility: p.eligibility ?? {} })),
    formFields: r.questions.map(
      (q): FormField => ({
        name: q.name,
        label: q.label,
        type: q.type,
        required: q.required,
        ...(q.required_when ? { required_when: { program_ids: [...q.required_when.program_ids] } } : {}),
        ...(q.options ? { options: q.options.map((o) => ({ value: o.value, label: o.label })) } : {}),
      }),
    ),
    payout: r.payout === null ? null : Number(r.payout),
    programPayouts: r.program_payouts,
    externalId: r.external_id,
    partner:
      r.partner_id === null
        ? null
        : { id: r.partner_id, name: r.partner_name!, adapter: r.adapter!, baseUrl: r.base_url!, timeoutMs: r.timeout_ms! },
  };
}
