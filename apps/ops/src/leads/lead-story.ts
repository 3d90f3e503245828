import { DataSource } from 'typeorm';
import {
  LeadStoryRepository,
  LeadStoryRows,
  StoryAttemptRow,
  StoryConsentRow,
  StoryOfferCheckRow,
  StoryPartnerCallRow,
  StoryResultRow,
  StoryReturnRow,
  StorySaleRow,
  StorySearchRow,
  StorySubmitRow,
} from '@lr/persistence';
import { contactScrubber, maskLead, MaskedLead, scrubStrings } from './contact-mask';

/**
 * Everything stored about one lead, for `ops lead show` (docs/operator-cli.md):
 * its search (or first direct post), the results shown and why other offers
 * were not, the partner networks asked, and every submit of its lead group
 * with consent evidence, sale, cap slots, its return, dedupe keys and delivery attempts.
 * Contact data is masked here, before anything is printed.
 */
export interface LeadStory {
  /** The id asked for, and what it turned out to be. */
  asked: { id: string; is: 'search' | 'submit' };
  /** The search, or the first direct post: the lead whose sales count together. */
  lead_group_id: string;
  /** The lead as last stored for the group (the search's, or the first post's), masked. */
  lead: MaskedLead;
  /** Its contact data is sealed (docs/security.md): `lead` holds the readable part; `lead show --reveal` opens it. */
  lead_sealed: boolean;
  search: SearchPart | null;
  partner_calls: PartnerCallPart[];
  results: ResultPart[];
  /** The search-time checks: per offer on the campaign, shown or why not (searches.offer_decisions). */
  offer_checks: OfferCheckPart[];
  submits: SubmitPart[];
}

export interface Named {
  id: string;
  name: string | null;
}

export interface SearchPart {
  id: string;
  affiliate: Named;
  campaign: Named;
  api_key: { id: string; prefix: string | null };
  is_test: boolean;
  created_at: string;
  closes_at: string;
  processing_done_at: string | null;
  submitted_at: string | null;
  accepted_count: number;
  true_exclusive_accepted: boolean;
  consumer_ip: string;
  ip_source: string;
  tracking: Record<string, string>;
  tcpa_consent: boolean | null;
  form_cert_url: string | null;
  universal_lead_cert: string | null;
}

export interface PartnerCallPart {
  partner: Named;
  status: string;
  offer_ids: string[];
  requested_at: string;
  answered_at: string | null;
  latency_ms: number | null;
  result_count: number | null;
  detail: string | null;
}

export interface ResultPart {
  /** 1 = first in the list every poll showed. */
  rank: number | null;
  id: string;
  offer: Named & { source: string; offer_type: string };
  school: string | null;
  partner: string | null;
  /** The caller's payout as shown (the result's best program payout); null when none is configured. */
  payout: number | null;
  programs: Array<{ value: string; label: string; payout: number | null }>;
  shown_at: string;
  expires_at: string | null;
}

export interface OfferCheckPart {
  offer: Named;
  shown: boolean;
  result_id: string | null;
  reason: string | null;
  detail: string | null;
  partner: string | null;
}

export interface SubmitPart {
  id: string;
  kind: 'result_submit' | 'direct_post';
  /** Direct-post retry: the post it named. */
  origin_lead_id: string | null;
  result_id: string | null;
  offer: Named & { source: string };
  school: string | null;
  affiliate: Named;
  campaign: Named;
  api_key_id: string;
  program_id: string | null;
  answers: Record<string, string>;
  is_test: boolean;
  created_at: string;
  consumer_ip: string;
  ip_source: string;
  tracking: Record<string, string>;
  decision: {
    status: string;
    code: string | null;
    reason: string | null;
    field: string | null;
    decided_by: string | null;
    decided_at: string | null;
    payout: number | null;
  };
  /** The lead as delivered (masked); null when it is the group's lead unchanged. */
  lead: MaskedLead | null;
  consent: ConsentPart | null;
  sale: SalePart | null;
  /** The school's return of the lead (docs/returns.md); null when it was not returned. */
  return: ReturnPart | null;
  /** Types of the dedupe keys this submit holds (written with a live sale, dropped on release). */
  dedupe_keys: string[];
  delivery_attempts: AttemptPart[];
}

export interface ConsentPart {
  tcpa_consent: boolean;
  tcpa_text: string | null;
  button_label: string | null;
  ip: string;
  consented_at: string;
  form_cert_url: string | null;
  universal_lead_cert: string | null;
}

export interface SalePart {
  id: string;
  status: string;
  offer_type: string;
  payout: number | null;
  /** What the buyer pays: operators only, never shown to affiliates. */
  price: number | null;
  created_at: string;
  updated_at: string;
  cap_slots: CapSlotPart[];
}

export interface ReturnPart {
  returned_at: string;
  reason: string;
  /** `api` (the buyer API) or `import` (ops returns import). */
  source: string;
  /** The school's note (operators only), masked like all free text. */
  note: string | null;
  /** The reversal entries: the affiliate's payout and the school's price taken back (zero or negative); null where nothing was booked. */
  payout_reversal: number | null;
  price_reversal: number | null;
  /** The cap slots the return gave back (none when the offer's policy does not refund the cap). */
  cap_slots_freed: Array<{ scope: string; period: string; period_start: string }>;
}

export interface CapSlotPart {
  scope: string;
  period: string;
  period_start: string;
  /** The slot's count now (other sales of the period included); null when its row is gone. */
  used_now: number | null;
  /** The cap's limit now; null when the cap has since been removed. */
  limit: number | null;
}

export interface AttemptPart {
  attempt: number;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  outcome: string | null;
  http_status: number | null;
  latency_ms: number | null;
  detail: string | null;
}

/**
 * Reads the story of a search id or a submit's lead id; null when neither
 * exists. The rows come from one snapshot (LeadStoryRepository); contact data
 * is masked before anything leaves here.
 */
export async function loadLeadStory(ds: DataSource, id: string): Promise<LeadStory | null> {
  const rows = await new LeadStoryRepository(ds).read(id);
  return rows ? leadStoryOf(id, rows) : null;
}

/** The story of the rows read for `id`, contact data masked. */
export function leadStoryOf(id: string, rows: LeadStoryRows): LeadStory {
  const { groupId, search: searchRow, submits: submitRows } = rows;
  const groupLead = searchRow ? searchRow.lead : submitRows.find((r) => r.id === groupId)?.lead;
  const story: LeadStory = {
    asked: { id, is: rows.is },
    lead_group_id: groupId,
    lead: {},
    lead_sealed: (searchRow ? searchRow.sealed : submitRows.find((r) => r.id === groupId)?.sealed) === true,
    search: searchRow ? searchPart(searchRow) : null,
    partner_calls: rows.partnerCalls.map(partnerCallPart),
    results: rows.results.map(resultPart),
    offer_checks: rows.offerChecks.map(offerCheckPart),
    submits: submitRows.map((r) =>
      submitPart(r, {
        consent: rows.consents.find((c) => c.lead_id === r.id),
        sale: rows.sales.find((s) => s.lead_id === r.id),
        returned: rows.returns.find((x) => x.lead_id === r.id),
        attempts: rows.attempts.filter((a) => a.lead_id === r.id),
        dedupe: rows.dedupeKeys.find((d) => d.lead_id === r.id)?.key_types ?? [],
      }),
    ),
  };
  // Free text (tracking, answers, buyers' replies, labels) may quote the person: masked too.
  const scrubbed = scrubStrings(story, contactScrubber(groupLead));
  scrubbed.lead = maskLead(groupLead);
  const groupMasked = JSON.stringify(scrubbed.lead);
  scrubbed.submits.forEach((s, i) => {
    const own = maskLead(submitRows[i].lead);
    s.lead = JSON.stringify(own) === groupMasked ? null : scrubStrings(own, contactScrubber(submitRows[i].lead));
  });
  return scrubbed;
}

const iso = (v: unknown): string => new Date(v as string | Date).toISOString();
const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : iso(v));
const money = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function searchPart(r: StorySearchRow): SearchPart {
  return {
    id: r.id,
    affiliate: { id: r.affiliate_id, name: r.affiliate_name },
    campaign: { id: r.campaign_id, name: r.campaign_name },
    api_key: { id: r.api_key_id, prefix: r.key_prefix ?? null },
    is_test: r.is_test,
    created_at: iso(r.created_at),
    closes_at: iso(r.closes_at),
    processing_done_at: isoOrNull(r.processing_done_at),
    submitted_at: isoOrNull(r.submitted_at),
    accepted_count: r.accepted_count,
    true_exclusive_accepted: r.true_exclusive_accepted,
    consumer_ip: r.consumer_ip,
    ip_source: r.ip_source,
    tracking: r.tracking ?? {},
    tcpa_consent: r.tcpa_consent,
    form_cert_url: r.form_cert_url,
    universal_lead_cert: r.universal_lead_cert,
  };
}

function partnerCallPart(r: StoryPartnerCallRow): PartnerCallPart {
  return {
    partner: { id: r.partner_id, name: r.partner_name },
    status: r.status,
    offer_ids: r.offer_ids,
    requested_at: iso(r.requested_at),
    answered_at: isoOrNull(r.answered_at),
    latency_ms: r.latency_ms,
    result_count: r.result_count,
    detail: r.detail,
  };
}

function resultPart(r: StoryResultRow): ResultPart {
  const entry = r.entry ?? {};
  return {
    rank: r.rank,
    id: r.id,
    offer: { id: r.offer_id, name: r.offer_name, source: r.source, offer_type: r.offer_type },
    school: entry.school?.name ?? r.school_name,
    partner: r.partner_name,
    payout: money(entry.payout),
    programs: (entry.programs ?? []).map((p) => ({ value: p.value, label: p.label, payout: money(p.payout) })),
    shown_at: iso(r.created_at),
    expires_at: isoOrNull(r.expires_at),
  };
}

function offerCheckPart(r: StoryOfferCheckRow): OfferCheckPart {
  const d = r.decision ?? {};
  return {
    offer: { id: r.offer_id, name: r.offer_name },
    shown: d.shown === true,
    result_id: d.result_id ?? null,
    reason: d.reason ?? null,
    detail: d.detail ?? null,
    partner: d.partner ?? null,
  };
}

function submitPart(
  r: StorySubmitRow,
  linked: { consent?: StoryConsentRow; sale?: StorySaleRow; returned?: StoryReturnRow; attempts: StoryAttemptRow[]; dedupe: string[] },
): SubmitPart {
  const { consent: c, sale: s, returned: x } = linked;
  return {
    id: r.id,
    kind: r.kind,
    origin_lead_id: r.origin_lead_id,
    result_id: r.result_id,
    offer: { id: r.offer_id, name: r.offer_name, source: r.offer_source },
    school: r.school_name,
    affiliate: { id: r.affiliate_id, name: r.affiliate_name },
    campaign: { id: r.campaign_id, name: r.campaign_name },
    api_key_id: r.api_key_id,
    program_id: r.program_id,
    answers: r.answers ?? {},
    is_test: r.is_test,
    created_at: iso(r.created_at),
    consumer_ip: r.consumer_ip,
    ip_source: r.ip_source,
    tracking: r.tracking ?? {},
    decision: {
      status: r.status,
      code: r.code,
      reason: r.reason,
      field: r.field,
      decided_by: r.decided_by,
      decided_at: isoOrNull(r.decided_at),
      payout: money(r.payout),
    },
    lead: null,
    consent: c
      ? {
          tcpa_consent: c.tcpa_consent,
          tcpa_text: c.tcpa_text,
          button_label: c.button_label,
          ip: c.ip,
          consented_at: iso(c.consented_at),
          form_cert_url: c.form_cert_url,
          universal_lead_cert: c.universal_lead_cert,
        }
      : null,
    sale: s
      ? {
          id: s.id,
          status: s.status,
          offer_type: s.offer_type,
          payout: money(s.payout),
          price: money(s.price),
          created_at: iso(s.created_at),
          updated_at: iso(s.updated_at),
          cap_slots: s.slots.map((x) => ({
            scope: x.scope,
            period: x.period,
            period_start: iso(x.period_start),
            used_now: x.used_now,
            limit: x.limit,
          })),
        }
      : null,
    return: x
      ? {
          returned_at: iso(x.returned_at),
          reason: x.reason,
          source: x.source,
          note: x.note,
          payout_reversal: money(x.payout_reversal),
          price_reversal: money(x.price_reversal),
          cap_slots_freed: x.cap_slots.map((slot) => ({ scope: slot.scope, period: slot.period, period_start: iso(slot.period_start) })),
        }
      : null,
    dedupe_keys: linked.dedupe,
    delivery_attempts: linked.attempts.map((a) => ({
      attempt: a.attempt,
      started_at: iso(a.started_at),
      finished_at: isoOrNull(a.finished_at),
      duration_ms: a.finished_at ? new Date(a.finished_at).getTime() - new Date(a.started_at).getTime() : null,
      outcome: a.outcome,
      http_status: a.http_status,
      latency_ms: a.latency_ms,
      detail: a.detail,
    })),
  };
}
