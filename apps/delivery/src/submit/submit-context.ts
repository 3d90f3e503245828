import type { LeadPayload, PartnerRef, ResultEntry, SubmitRequestedV1 } from '@lr/contracts';
import { Lead, mergeLead } from '@lr/domain';
import type { DeliverySettings } from '@lr/domain';
import type { Queryable } from '@lr/persistence';

/** A cap that bounds this sale: on the offer (campaignId null) or on the campaign's offer. */
export interface SaleCap {
  campaignId: string | null;
  period: string;
  limit: number;
  timezone: string;
}

/** The offer as a sale needs it: never shown to affiliates (price, delivery settings). */
export interface SaleOffer {
  id: string;
  name: string;
  schoolId: string;
  schoolName: string;
  source: 'own' | 'partner';
  offerType: 'shared' | 'exclusive' | 'true_exclusive';
  price: number | null;
  tcpaText: string | null;
  duplicateWindowDays: number;
  delivery: DeliverySettings | null;
  payout: number | null;
  programPayouts: Record<string, number> | null;
  caps: SaleCap[];
  partner: PartnerRef | null;
}

/** Everything one submit is decided on, read from the request, the search (or earlier post) and the catalog. */
export interface SubmitContext {
  msg: SubmitRequestedV1;
  offer: SaleOffer;
  /** The lead as it will be delivered: the search's with the submit's fields over it, or the posted one. */
  lead: Lead;
  /** The stored lead the group already submitted, when its data may no longer change. */
  lockedLead: Lead | null;
  tracking: Record<string, string>;
  consumerIp: string;
  ipSource: 'consumer' | 'caller_server';
  isTest: boolean;
  leadGroupId: string;
  formCertUrl: string | null;
  universalLeadCert: string | null;
  /** Result submit: the result as shown, its expiry and what a partner needs on submit. */
  result: { entry: ResultEntry; expiresAt: Date | null; partnerResultId: string | null } | null;
}

/** Loads the context; null when the result, search, earlier post or offer is gone (the gateway checked they existed). */
export async function loadSubmitContext(db: Queryable, msg: SubmitRequestedV1): Promise<SubmitContext | null> {
  if (msg.kind === 'result_submit') {
    const rows: Array<Record<string, unknown>> = await db.query(
      `SELECT r.offer_id, r.entry, r.partner_data, r.expires_at, s.lead, s.tracking, s.consumer_ip, s.ip_source, s.is_test,
              s.submitted_at, s.form_cert_url, s.universal_lead_cert
         FROM results r JOIN searches s ON s.id = r.search_id
        WHERE r.id = $1 AND r.search_id = $2 AND s.affiliate_id = $3`,
      [msg.resultId, msg.searchId, msg.affiliateId],
    );
    const r = rows[0];
    if (!r) return null;
    const offer = await loadSaleOffer(db, r.offer_id as string, msg.campaignId);
    if (!offer) return null;
    const searchLead = r.lead as Lead;
    const partnerData = r.partner_data as { partnerResultId?: string } | null;
    return {
      msg,
      offer,
      lead: mergeLead(searchLead, msg.lead as Lead | null),
      lockedLead: r.submitted_at ? searchLead : null,
      tracking: r.tracking as Record<string, string>,
      consumerIp: r.consumer_ip as string,
      ipSource: r.ip_source as SubmitContext['ipSource'],
      isTest: msg.isTest || (r.is_test as boolean),
      leadGroupId: msg.searchId!,
      formCertUrl: msg.formCertUrl ?? (r.form_cert_url as string | null),
      universalLeadCert: msg.universalLeadCert ?? (r.universal_lead_cert as string | null),
      result: {
        entry: r.entry as ResultEntry,
        expiresAt: r.expires_at as Date | null,
        partnerResultId: partnerData?.partnerResultId ?? null,
      },
    };
  }

  const offer = await loadSaleOffer(db, msg.offerId!, msg.campaignId);
  if (!offer) return null;
  let group = msg.leadId;
  let lockedLead: Lead | null = null;
  let isTest = msg.isTest;
  if (msg.originLeadId) {
    const rows: Array<{ lead_group_id: string; lead: Lead; is_test: boolean }> = await db.query(
      `SELECT lead_group_id, lead, is_test FROM leads WHERE id = $1 AND affiliate_id = $2 AND kind = 'direct_post'`,
      [msg.originLeadId, msg.affiliateId],
    );
    if (!rows[0]) return null;
    group = rows[0].lead_group_id;
    lockedLead = rows[0].lead;
    isTest ||= rows[0].is_test;
  }
  return {
    msg,
    offer,
    lead: (msg.lead ?? {}) as Lead,
    lockedLead,
    tracking: msg.tracking ?? {},
    consumerIp: msg.consumerIp!,
    ipSource: msg.ipSource ?? 'consumer',
    isTest,
    leadGroupId: group,
    formCertUrl: msg.formCertUrl,
    universalLeadCert: msg.universalLeadCert,
    result: null,
  };
}

async function loadSaleOffer(db: Queryable, offerId: string, campaignId: string): Promise<SaleOffer | null> {
  const rows: Array<Record<string, unknown>> = await db.query(
    `SELECT o.id, o.name, o.school_id, s.name AS school_name, o.source, o.offer_type, o.price, o.tcpa_text,
            o.duplicate_window_days, o.delivery, co.payout, co.program_payouts,
            COALESCE((SELECT json_agg(json_build_object('campaign_id', c.campaign_id, 'period', c.period, 'limit', c."limit",
                                                        'timezone', c.timezone) ORDER BY c.campaign_id NULLS FIRST, c.period)
                        FROM caps c WHERE c.offer_id = o.id AND (c.campaign_id IS NULL OR c.campaign_id = $2)), '[]') AS caps,
            p.id AS partner_id, p.name AS partner_name, p.adapter, p.base_url, p.timeout_ms
       FROM offers o
       JOIN schools s ON s.id = o.school_id
       JOIN campaign_offers co ON co.offer_id = o.id AND co.campaign_id = $2
       LEFT JOIN partners p ON p.id = o.partner_id
      WHERE o.id = $1`,
    [offerId, campaignId],
  );
  const o = rows[0];
  if (!o) return null;
  return {
    id: o.id as string,
    name: o.name as string,
    schoolId: o.school_id as string,
    schoolName: o.school_name as string,
    source: o.source as SaleOffer['source'],
    offerType: o.offer_type as SaleOffer['offerType'],
    price: o.price === null ? null : Number(o.price),
    tcpaText: o.tcpa_text as string | null,
    duplicateWindowDays: o.duplicate_window_days as number,
    delivery: o.delivery as DeliverySettings | null,
    payout: o.payout === null ? null : Number(o.payout),
    programPayouts: o.program_payouts as Record<string, number> | null,
    caps: (o.caps as Array<{ campaign_id: string | null; period: string; limit: number; timezone: string }>).map((c) => ({
      campaignId: c.campaign_id,
      period: c.period,
      limit: c.limit,
      timezone: c.timezone,
    })),
    partner:
      o.partner_id === null
        ? null
        : { id: o.partner_id as string, name: o.partner_name as string, adapter: o.adapter as string, baseUrl: o.base_url as string, timeoutMs: o.timeout_ms as number },
  };
}

export type { LeadPayload };
