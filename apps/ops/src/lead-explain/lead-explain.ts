import type { OfferRefusal } from '@lr/contracts';
import {
  CampaignOffer,
  CapSlot,
  capsAt,
  judgeOffers,
  Lead,
  leadOptOutKeys,
  PersonKeySecret,
  OfferVerdict,
  ownRankKeys,
  ProgramCheck,
  Refused,
  SaleFacts,
  SALE_REFUSALS,
  searchOutcome,
  submitDecisionOf,
  testMode,
} from '@lr/domain';
import {
  ExplainFacts,
  ExplainFactsQuery,
  ExplainPartnerCallRow,
  ExplainSaleRow,
  ExplainSearchRow,
  ExplainSubmitRow,
  LeadExplainRepository,
  LeadExplainRows,
} from '@lr/persistence';
import { DataSource } from 'typeorm';
import { contactScrubber, maskLead, MaskedLead, scrubStrings } from '../leads/contact-mask';
import { Fact, OfferName, partnerWords, programWords, refusalWords, RuleWords, schoolShownWords } from './rule-words';

/**
 * `ops lead explain`: for every offer on a search's campaign, shown or not,
 * the rule that decided and its facts, program by program; for each submit,
 * the rule behind its decision. What was decided is as stored at the time;
 * the rules are asked again (libs/domain: judgeOffers, searchOutcome, the
 * functions the search and the submit run) on the stored lead and the facts
 * now, as of the decision's time, and `agrees` says whether they still come
 * to the stored decision.
 */
export interface LeadExplanation {
  asked: { id: string; is: 'search' | 'submit' };
  lead_group_id: string;
  lead: MaskedLead;
  search: SearchExplanation | null;
  submits: SubmitExplanation[];
}

export interface SearchExplanation {
  id: string;
  campaign: { id: string; name: string };
  created_at: string;
  is_test: boolean;
  shown: number;
  offers: OfferExplanation[];
}

export interface Outcome {
  shown: boolean;
  reason: string | null;
  detail: string | null;
}

export interface OfferExplanation {
  offer: { id: string; name: string | null };
  source: 'own' | 'partner' | null;
  /** What the search decided and stored. */
  stored: Outcome & { partner: string | null; result_id: string | null; rank: number | null };
  /** The rules asked again now (catalog now, facts as of the decision). */
  verdict: Outcome;
  agrees: boolean;
  /** The deciding rule in words; null for a shown offer. */
  rule: string | null;
  facts: Fact[];
  /** Own offers: each program's eligibility (null: not judged, the offer's own rules failed first). */
  programs: Array<{ value: string; label: string; eligible: boolean | null; rule: string | null; facts: Fact[] }>;
}

export interface SubmitExplanation {
  id: string;
  kind: string;
  offer: { id: string; name: string };
  program_id: string | null;
  created_at: string;
  decision: {
    status: string;
    code: string | null;
    reason: string | null;
    field: string | null;
    decided_by: string | null;
    decided_at: string | null;
  };
  /** The service's rules asked again (eligibility, sale state, duplicate, caps); null when the decision is not theirs to give. */
  verdict: { code: string; reason: string } | null;
  agrees: boolean | null;
  rule: string | null;
  facts: Fact[];
}

export async function explainLead(ds: DataSource, id: string, secret: PersonKeySecret): Promise<LeadExplanation | null> {
  return new LeadExplainRepository(ds).read(id, async (rows, readFacts) => {
    const plan = factPlan(rows, secret);
    const facts = await readFacts(plan.query);
    const ctx = new Context(rows, facts, plan.personOf);
    const groupLead = rows.search?.lead ?? rows.submits.find((s) => s.id === rows.groupId)?.lead ?? {};
    const explanation: LeadExplanation = {
      asked: { id, is: rows.is },
      lead_group_id: rows.groupId,
      lead: {},
      search: rows.search ? explainSearch(rows.search, ctx) : null,
      submits: rows.submits.map((s) => explainSubmit(s, ctx)),
    };
    const scrubbed = scrubStrings(explanation, contactScrubber(groupLead));
    scrubbed.lead = maskLead(groupLead);
    return scrubbed;
  });
}

/**
 * When each decision was taken, and what the rules need read for it: cap
 * slots, and each person's last sales before those times (the search's
 * person is `search`, a submit's its id).
 */
function factPlan(rows: LeadExplainRows, secret: PersonKeySecret): { query: ExplainFactsQuery; personOf: Map<string, number> } {
  const slots: CapSlot[] = [];
  const persons: ExplainFactsQuery['persons'][number][] = [];
  const personOf = new Map<string, number>();
  const s = rows.search;
  if (s) {
    const offers = rows.offers.get(s.campaign_id) ?? [];
    const times = [s.created_at, ...rows.partnerCalls.flatMap((c) => (c.answered_at ? [c.answered_at] : []))].map((t) => new Date(t));
    for (const o of offers) for (const t of times) slots.push(...capsAt(o.caps, t).map((c) => c.slot));
    personOf.set('search', persons.length);
    persons.push({
      keys: s.person_keys ?? testMode(s.is_test).personKeys(secret, s.lead),
      offerIds: offers.map((o) => o.offerId),
      before: times,
      optOutKeys: leadOptOutKeys(secret, s.lead),
    });
  }
  for (const sub of rows.submits) {
    const offer = rows.offers.get(sub.campaign_id)?.find((o) => o.offerId === sub.offer_id);
    if (!offer) continue;
    const at = new Date(sub.created_at);
    slots.push(...capsAt(offer.caps, at).map((c) => c.slot));
    personOf.set(sub.id, persons.length);
    persons.push({
      keys: testMode(sub.is_test).personKeys(secret, sub.lead),
      offerIds: [offer.offerId],
      before: [at],
      optOutKeys: leadOptOutKeys(secret, sub.lead),
    });
  }
  return { query: { slots, persons }, personOf };
}

/** The facts as of a time, and the names of offers. */
class Context {
  constructor(
    readonly rows: LeadExplainRows,
    private readonly facts: ExplainFacts,
    private readonly personOf: Map<string, number>,
  ) {}

  readonly name: OfferName = (offerId) => `${this.rows.offerNames.get(offerId) ?? 'offer'} (${offerId})`;

  /** The sale facts as of `at`: the group's sales live then (and still on record now), cap usage now, the person's last sales before `at`. */
  saleFactsAt(at: Date, person: string): SaleFacts {
    const index = this.personOf.get(person);
    return {
      liveSales: this.rows.sales.filter((s) => liveAt(s, at)),
      lastSales: (index === undefined ? undefined : this.facts.lastSalesBefore[index]?.get(at.toISOString())) ?? new Map(),
      capUsage: this.facts.capUsage,
      suppressed: index !== undefined && (this.facts.suppressedSince[index]?.getTime() ?? Infinity) <= at.getTime(),
    };
  }
}

/** A sale was live at `at` when it was made before and not released by then. */
function liveAt(s: ExplainSaleRow, at: Date): boolean {
  return new Date(s.created_at) < at && (s.status !== 'released' || new Date(s.updated_at) > at);
}

function explainSearch(s: ExplainSearchRow, ctx: Context): SearchExplanation {
  const { rows } = ctx;
  const at = new Date(s.created_at);
  const lead = s.lead;
  const mode = testMode(s.is_test);
  const offers = rows.offers.get(s.campaign_id) ?? [];
  const startFacts = ctx.saleFactsAt(at, 'search');
  // The search's first step, asked again: eligibility, then the sale facts (StartSearch.judge), then what it shows.
  const judged = judgeOffers(offers, lead, { kind: 'catalog' }, at, mode);
  const verdicts = judged.decide(startFacts);
  const outcome = searchOutcome(offers, verdicts, mode.ranking, ownRankKeys);
  const rankOf = new Map(rows.results.map((r) => [r.offer_id, r]));
  const callOf = (offerId: string) => rows.partnerCalls.find((c) => c.offer_ids.includes(offerId));

  const explained = offers.map((offer, i): OfferExplanation => {
    const stored = storedOutcome(s, offer.offerId, rankOf.get(offer.offerId));
    const o = outcome.outcomes.get(offer.offerId)!;
    const programs = programsOf(offer, judged.eligibility[i]);
    let verdict: Outcome;
    let words: RuleWords | null = null;
    if (o.kind === 'shown') verdict = { shown: true, reason: null, detail: null };
    else if (o.kind === 'refused') {
      verdict = refusedOutcome(o.verdict);
      words = wordsOf(o.verdict, offer, at, ctx);
    } else if (o.kind === 'school_already_shown') {
      verdict = { shown: false, reason: 'school_already_shown', detail: null };
      words = schoolShownWords(o.candidate, o.by, ctx.name);
    } else {
      ({ verdict, words } = partnerOutcome(offer, stored, callOf(offer.offerId), ctx, s));
    }
    return {
      offer: { id: offer.offerId, name: offer.name },
      source: offer.source,
      stored,
      verdict,
      agrees: same(stored, verdict),
      ...ruleAndFacts(words, stored, verdict),
      programs,
    };
  });

  // Offers the search decided on that are no longer on the campaign.
  const onCampaign = new Set(offers.map((o) => o.offerId));
  for (const offerId of Object.keys(s.offer_decisions).filter((id) => !onCampaign.has(id))) {
    const stored = storedOutcome(s, offerId, rankOf.get(offerId));
    const verdict = { shown: false, reason: 'not_on_campaign', detail: null };
    const words = stored.shown ? null : { rule: `${stored.reason}${stored.detail ? ` (${stored.detail})` : ''}`, facts: [] };
    explained.push({
      offer: { id: offerId, name: rows.offerNames.get(offerId) ?? null },
      source: null,
      stored,
      verdict,
      agrees: same(stored, verdict),
      ...ruleAndFacts(words, stored, verdict, 'the offer is not on the campaign now: the rules cannot be asked again'),
      programs: [],
    });
  }
  return {
    id: s.id,
    campaign: { id: s.campaign_id, name: s.campaign_name },
    created_at: at.toISOString(),
    is_test: s.is_test,
    shown: rows.results.length,
    offers: explained,
  };
}

function storedOutcome(s: ExplainSearchRow, offerId: string, result: { id: string; rank: number } | undefined): OfferExplanation['stored'] {
  const d = s.offer_decisions[offerId] ?? {};
  const shown = d.shown === true;
  return {
    shown,
    reason: shown ? null : (d.reason ?? 'not_decided'),
    detail: d.detail ?? null,
    partner: d.partner ?? null,
    result_id: shown ? (result?.id ?? null) : null,
    rank: shown ? (result ? Number(result.rank) : null) : null,
  };
}

const refusedOutcome = (v: Refused): Outcome => ({ shown: false, reason: v.refusal, detail: v.detail ?? null });

function wordsOf(v: Refused, offer: CampaignOffer | undefined, at: Date, ctx: Context): RuleWords {
  if (v.facts) return refusalWords(v.facts, offer, at, ctx.name);
  return { rule: v.refusal === 'not_on_campaign' ? 'the offer is not on the campaign now' : v.refusal, facts: [] };
}

/**
 * A partner offer that passed the search's first checks: its call decided
 * (stored), and a result it brought was judged again when the answer came
 * (the sale facts as of the answer). Whether a result that passed was shown
 * or its school already was is the stored merge's.
 */
function partnerOutcome(
  offer: CampaignOffer,
  stored: OfferExplanation['stored'],
  call: ExplainPartnerCallRow | undefined,
  ctx: Context,
  s: ExplainSearchRow,
): { verdict: Outcome; words: RuleWords | null } {
  const brought = stored.shown || stored.reason === 'school_already_shown' || SALE_REFUSALS.has(stored.reason as OfferRefusal);
  if (!call || !call.answered_at || call.status === 'pending')
    return { verdict: { shown: false, reason: 'partner_asked', detail: null }, words: partnerWords('partner_asked', call, offer) };
  if (call.status !== 'answered') {
    const reason = `partner_${call.status}`;
    return { verdict: { shown: false, reason, detail: call.detail }, words: partnerWords(reason, call, offer) };
  }
  if (!brought) {
    const reason = stored.reason === 'partner_late' ? 'partner_late' : 'partner_no_result';
    return { verdict: { shown: false, reason, detail: null }, words: partnerWords(reason, call, offer) };
  }
  // The answer's merge, asked again (MergePartnerAnswer.judge): the offer's own rules, then the sale facts as of the answer.
  const answeredAt = new Date(call.answered_at);
  const [judged] = judgeOffers([offer], s.lead, { kind: 'partner' }, answeredAt, testMode(s.is_test)).decide(
    ctx.saleFactsAt(answeredAt, 'search'),
  );
  const refused = judged.qualifies ? null : judged;
  if (refused) return { verdict: refusedOutcome(refused), words: wordsOf(refused, offer, answeredAt, ctx) };
  if (stored.reason === 'school_already_shown') {
    return {
      verdict: { shown: false, reason: 'school_already_shown', detail: null },
      words: { rule: 'a live search shows each school once: a result of its school was already shown', facts: [] },
    };
  }
  return { verdict: { shown: true, reason: null, detail: null }, words: null };
}

function programsOf(offer: CampaignOffer, verdict: OfferVerdict): OfferExplanation['programs'] {
  if (offer.source !== 'own') return [];
  const checks: ProgramCheck[] | undefined = verdict.qualifies
    ? verdict.programChecks
    : verdict.facts?.kind === 'programs'
      ? verdict.facts.programs
      : undefined;
  return offer.programs.map((p) => {
    const check = checks?.find((c) => c.value === p.value);
    const words = check ? programWords(check) : null;
    return {
      value: p.value,
      label: p.label,
      eligible: check ? check.check.eligible : null,
      rule: words?.rule ?? null,
      facts: words?.facts ?? [],
    };
  });
}

const same = (a: Outcome, b: Outcome) => a.shown === b.shown && (a.shown || a.reason === b.reason);

/** The rule in words; when the rules now come to another outcome than the stored one, the stored decision leads and the difference is said. */
function ruleAndFacts(words: RuleWords | null, stored: Outcome, verdict: Outcome, note?: string): { rule: string | null; facts: Fact[] } {
  const facts = words?.facts ?? [];
  if (same(stored, verdict)) return { rule: words?.rule ?? null, facts };
  const was = stored.shown ? 'shown' : `${stored.reason}${stored.detail ? ` (${stored.detail})` : ''}`;
  const now = verdict.shown ? 'shown' : (words?.rule ?? verdict.reason);
  return {
    rule: `at the time: ${was}; ${note ?? `asked again on the facts now: ${now}`}`,
    facts: [{ name: 'stored decision', value: was, source: 'stored' }, ...facts],
  };
}

/**
 * A submit's decision as stored, and for the service's own refusals the
 * rule behind it asked again: the offer and chosen program's eligibility,
 * then the sale facts as of the submit (submitDecisionOf maps the refusal to
 * the answer's code and reason, as decide-submit does).
 */
function explainSubmit(sub: ExplainSubmitRow, ctx: Context): SubmitExplanation {
  const base = {
    id: sub.id,
    kind: sub.kind,
    offer: { id: sub.offer_id, name: sub.offer_name },
    program_id: sub.program_id,
    created_at: new Date(sub.created_at).toISOString(),
    decision: {
      status: sub.status,
      code: sub.code,
      reason: sub.reason,
      field: sub.field,
      decided_by: sub.decided_by,
      decided_at: sub.decided_at ? new Date(sub.decided_at).toISOString() : null,
    },
  };
  const stored: Fact = { name: 'decision', value: `${sub.code ?? 'PENDING'}${sub.reason ? `: ${sub.reason}` : ''}`, source: 'stored' };
  if (sub.decided_by === 'buyer') {
    const a = sub.attempt;
    return {
      ...base,
      verdict: null,
      agrees: null,
      rule: a
        ? `the buyer's system answered ${a.outcome ?? '(unfinished)'}${a.http_status ? ` (HTTP ${a.http_status})` : ''}${a.latency_ms !== null ? ` after ${a.latency_ms.toLocaleString('en-US')} ms` : ''}`
        : 'decided by the buyer; no delivery attempt is recorded',
      facts: [stored, ...(a?.detail ? [{ name: "the buyer's own words", value: a.detail, source: 'stored' as const }] : [])],
    };
  }
  if (!SERVICE_RULE_CODES.has(sub.code ?? '')) {
    const rule =
      sub.status === 'pending'
        ? 'not decided yet'
        : sub.field
          ? `${sub.code} on field ${sub.field}: ${sub.reason}`
          : sub.code === 'OFFER_UNAVAILABLE'
            ? `the offer or result was no longer available${sub.result_expires_at ? ` (result expired ${new Date(sub.result_expires_at).toISOString()})` : ''}`
            : `the checks passed: ${sub.code}`;
    return { ...base, verdict: null, agrees: null, rule, facts: [stored] };
  }
  const at = new Date(sub.created_at);
  const offer = ctx.rows.offers.get(sub.campaign_id)?.find((o) => o.offerId === sub.offer_id);
  if (!offer)
    return {
      ...base,
      verdict: null,
      agrees: null,
      rule: `${sub.code}: ${sub.reason} (the offer is not on the campaign now: the rules cannot be asked again)`,
      facts: [stored],
    };
  const [judged] = judgeOffers([offer], sub.lead as Lead, { kind: 'chosen', programId: sub.program_id }, at, testMode(sub.is_test)).decide(
    ctx.saleFactsAt(at, sub.id),
  );
  const refused = judged.qualifies ? null : judged;
  if (!refused) {
    return {
      ...base,
      verdict: null,
      agrees: false,
      rule: `at the time: ${sub.code} (${sub.reason}); asked again on the facts now the checks pass`,
      facts: [stored],
    };
  }
  const d = submitDecisionOf(refused);
  const words = wordsOf(refused, offer, at, ctx);
  const agrees = d.code === sub.code && d.reason === sub.reason;
  return {
    ...base,
    verdict: { code: d.code, reason: d.reason },
    agrees,
    rule: agrees
      ? words.rule
      : `at the time: ${sub.code} (${sub.reason}); asked again on the facts now: ${d.code} (${d.reason}), ${words.rule}`,
    facts: [stored, ...words.facts],
  };
}

/** The codes the service's qualify rules give at submit (eligibility, sale state, duplicate, caps). */
const SERVICE_RULE_CODES = new Set(['NOT_ELIGIBLE', 'DUPLICATE', 'CAP_REACHED']);
