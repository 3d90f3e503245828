import type { CampaignOffer, EligibilityFailure, ProgramCheck, RankCandidate, RefusalFacts } from '@lr/domain';
import { decimalText, type Cents } from '@lr/domain';
import { maskZip } from '../leads/contact-mask';

/**
 * Where a fact comes from: `stored` was recorded at the time (the search's
 * lead and decisions, its partner calls, a submit's row and decision), `now`
 * is read now (the catalog, cap usage, the group's sales, the dedupe index).
 */
export type FactSource = 'stored' | 'now';

export interface Fact {
  name: string;
  value: string | number | boolean | string[] | null;
  source: FactSource;
}

/** A rule in words with the facts it decided on. */
export interface RuleWords {
  rule: string;
  facts: Fact[];
}

const DAY_MS = 86_400_000;
const count = (n: number) => n.toLocaleString('en-US');
const list = (v: readonly string[]) => `[${v.join(', ')}]`;

/** The words of a lead field an eligibility rule reads. */
const RULE_FIELDS: Record<EligibilityFailure['rule'], string> = {
  states: 'state',
  min_age: 'age',
  max_age: 'age',
  education_levels: 'education level',
  min_hs_grad_year: 'high school graduation year',
  max_hs_grad_year: 'high school graduation year',
  military_affiliations: 'military affiliation',
  learning_preferences: 'learning preference',
  start_timelines: 'start timeline',
  us_citizen: 'us_citizen',
  zip_prefixes: 'ZIP',
};

/** The lead's value as operators may see it (a ZIP masked as `lead show` masks it). */
function shownValue(f: EligibilityFailure): string | number | null {
  if (f.actual === null) return null;
  return f.rule === 'zip_prefixes' ? maskZip(String(f.actual)) : f.actual;
}

/** "state NV not in [CA, TX]", "age 17 below min_age 18", … and the two facts: the lead's value (stored) and the rule's (now). */
export function eligibilityWords(f: EligibilityFailure, owner: string): RuleWords {
  const field = RULE_FIELDS[f.rule];
  const value = shownValue(f);
  const has = value === null ? `no ${field}` : `${field} ${value}`;
  const required = f.required;
  let rule: string;
  switch (f.rule) {
    case 'min_age':
    case 'min_hs_grad_year':
      rule = value === null ? `${has} (${f.rule} ${required})` : `${has} below ${f.rule} ${required}`;
      break;
    case 'max_age':
    case 'max_hs_grad_year':
      rule = value === null ? `${has} (${f.rule} ${required})` : `${has} above ${f.rule} ${required}`;
      break;
    case 'us_citizen':
      rule = `${has}; ${owner} asks us_citizen ${required ? 'yes' : 'no'}`;
      break;
    case 'zip_prefixes':
      rule = `${has} does not start with any of ${list(required as string[])}`;
      break;
    default:
      rule = `${has} not in ${list(required as string[])}`;
  }
  return {
    rule,
    facts: [
      { name: `lead ${field}`, value, source: 'stored' },
      { name: `${owner} ${f.rule}`, value: Array.isArray(required) ? [...required] : (required as number | boolean), source: 'now' },
    ],
  };
}

/** Each program's check in words: eligible, or its failing rule with facts. */
export function programWords(p: ProgramCheck): RuleWords | null {
  return p.check.eligible ? null : eligibilityWords(p.check, `program ${p.value}`);
}

/** Names of offers, for the sales and schools a rule points at. */
export type OfferName = (offerId: string) => string;

/**
 * A refusal of libs/domain qualify in words, from the facts the rule
 * returned; `at` is when it was decided (the search's start, a partner's
 * answer, a submit).
 */
export function refusalWords(facts: RefusalFacts, offer: CampaignOffer | undefined, at: Date, name: OfferName): RuleWords {
  switch (facts.kind) {
    case 'offer_status':
      return { rule: `offer status ${facts.status} (not active)`, facts: [{ name: 'offer status', value: facts.status, source: 'now' }] };
    case 'eligibility':
      return eligibilityWords(facts.failure, 'offer');
    case 'program':
      return eligibilityWords(facts.failure, `program ${facts.program}`);
    case 'programs': {
      const each = facts.programs.map((p) => ({ value: p.value, words: programWords(p) }));
      return {
        rule: `no program qualifies: ${each.map((p) => `${p.value}: ${p.words?.rule ?? 'eligible'}`).join('; ')}`,
        facts: each.flatMap((p) => p.words?.facts ?? []),
      };
    }
    case 'sale': {
      const by = facts.by;
      const sold = by ? `${by.offerType} to ${name(by.offerId)}` : '';
      const saleFacts: Fact[] = [{ name: "the lead group's live sales", value: facts.liveSales, source: 'now' }];
      if (by) saleFacts.push({ name: 'the sale that decided', value: `${name(by.offerId)} (${by.offerType})`, source: 'now' });
      const rule = {
        already_sold_to_offer: 'this lead already has a live sale to this offer (a repost)',
        sold_true_exclusive: `sold out: the lead was sold ${sold}, which ends its other sales`,
        sale_limit_reached: `sold out: the lead already has ${facts.liveSales} live sales, the most allowed`,
        school_sold_exclusive: `its school bought the lead ${sold}`,
        already_sold: `a ${offer?.offerType ?? '?'} offer needs a lead not yet sold (to its school, for exclusive); already sold ${sold}`,
      }[facts.refusal];
      return { rule, facts: saleFacts };
    }
    case 'opted_out':
      return {
        rule: 'the person opted out: their email or phone is suppressed (optout status shows the request)',
        facts: [{ name: 'suppressed', value: true, source: 'now' }],
      };
    case 'duplicate': {
      const days = Math.floor((at.getTime() - facts.soldAt.getTime()) / DAY_MS);
      return {
        rule: `sold to this person ${days} day${days === 1 ? '' : 's'} ago (${facts.soldAt.toISOString()}); window ${facts.windowDays} days`,
        facts: [
          { name: 'last sale of this offer to the person', value: facts.soldAt.toISOString(), source: 'now' },
          { name: 'offer duplicate_window_days', value: facts.windowDays, source: 'now' },
        ],
      };
    }
    case 'cap': {
      const c = facts.cap;
      const scope = c.campaignId === null ? '' : 'campaign ';
      const zone = c.period === 'total' ? '' : ` (${c.timezone})`;
      return {
        rule: `${scope}${c.period} cap ${count(facts.used)} of ${count(c.limit)} reached${zone}`,
        facts: [
          { name: `${scope}${c.period} cap limit`, value: c.limit, source: 'now' },
          { name: `sales counted in the period from ${c.slot.periodStart.toISOString()}`, value: facts.used, source: 'now' },
          { name: 'cap timezone', value: c.timezone, source: 'now' },
        ],
      };
    }
  }
}

/** Why a qualifying own offer was not shown: its school's better-ranked offer was. */
export function schoolShownWords(candidate: RankCandidate, by: RankCandidate, name: OfferName): RuleWords {
  const payout = (p: number | undefined) => (p === undefined ? 'none' : decimalText(p as Cents));
  return {
    rule: `a live search shows each school once: ${name(by.offerId)} ranks higher (priority ${by.priority} vs ${candidate.priority}, payout ${payout(by.payout)} vs ${payout(candidate.payout)})`,
    facts: [
      { name: 'shown instead', value: name(by.offerId), source: 'now' },
      { name: 'offer priority', value: candidate.priority, source: 'now' },
    ],
  };
}

/** A partner offer's outcome from its call (as stored) and the partner's settings now. */
export function partnerWords(
  reason: string,
  call: { partner_name: string; status: string; latency_ms: number | null; detail: string | null; answered_at: Date | null } | undefined,
  offer: CampaignOffer | undefined,
): RuleWords {
  const partner = call?.partner_name ?? offer?.partner?.name ?? 'the partner';
  const facts: Fact[] = [];
  if (call) {
    facts.push({ name: 'partner call status', value: call.status, source: 'stored' });
    if (call.latency_ms !== null) facts.push({ name: 'partner call latency ms', value: call.latency_ms, source: 'stored' });
    if (call.detail) facts.push({ name: 'partner call detail', value: call.detail, source: 'stored' });
  }
  if (offer?.partner) facts.push({ name: 'partner timeout_ms', value: offer.partner.timeoutMs, source: 'now' });
  const latency = call?.latency_ms ?? null;
  const detail = call?.detail ? `: ${call.detail}` : '';
  const rule =
    {
      partner_timeout: `partner ${partner} timed out after ${latency === null ? '?' : count(latency)} ms${offer?.partner ? ` (timeout_ms ${count(offer.partner.timeoutMs)} now)` : ''}`,
      partner_error: `partner ${partner} failed${detail}`,
      partner_circuit_open: `partner ${partner} was not called: its circuit breaker was open${detail}`,
      partner_expired: `partner ${partner} was asked too late (the search had closed)`,
      partner_no_result: `partner ${partner} answered without a result for this offer`,
      partner_late: `partner ${partner} answered after the search closed${call?.answered_at ? ` (at ${new Date(call.answered_at).toISOString()})` : ''}`,
      partner_asked: `partner ${partner} was asked; no answer is recorded`,
    }[reason] ?? `${reason}${detail}`;
  return { rule, facts };
}
