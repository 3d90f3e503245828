import type { MaskedLead } from '../leads/contact-mask';
import type { LeadExplanation, OfferExplanation, SubmitExplanation } from './lead-explain';
import type { Fact } from './rule-words';

const field = (label: string, value: string, indent = '    ') => `${indent}${`${label} `.padEnd(10)}${value}`.trimEnd();
const named = (n: { id: string; name: string | null }) => (n.name ? `${n.name} (${n.id})` : n.id);
const valueOf = (v: Fact['value']) => (v === null ? 'none' : Array.isArray(v) ? `[${v.join(', ')}]` : String(v));
const factLine = (facts: readonly Fact[]) => facts.map((f) => `${f.name} = ${valueOf(f.value)} (${f.source})`).join('; ');

/** `lead explain` for a terminal: every offer of the search's campaign, then every submit of the group. */
export function formatLeadExplanation(x: LeadExplanation): string[] {
  const out: string[] = [];
  const s = x.search;
  out.push(
    s
      ? `Lead ${x.asked.id}: ${x.asked.is === 'search' ? 'a search' : `a submit in lead group ${x.lead_group_id}`}; ${s.offers.length} offer(s) judged, ${s.shown} shown`
      : `Lead ${x.asked.id}: direct post group ${x.lead_group_id} (no search)`,
    "Facts marked (stored) were recorded at the time; (now) are read now: the catalog, cap usage, the group's sales, the dedupe index.",
    '',
    'Lead (contact data masked)',
    ...leadLines(x.lead),
  );
  if (s) {
    out.push('', `Search ${s.id}: campaign ${named(s.campaign)}, created ${s.created_at}${s.is_test ? ', test search' : ''}`);
    for (const o of s.offers) out.push('', ...offerLines(o));
  }
  out.push('', `Submits in this lead group (${x.submits.length})`);
  if (x.submits.length === 0) out.push('  none');
  for (const sub of x.submits) out.push('', ...submitLines(sub, sub.id === x.asked.id));
  return out;
}

function leadLines(lead: MaskedLead): string[] {
  return Object.entries(lead).flatMap(([group, fields]) => Object.entries(fields).map(([k, v]) => `  ${`${group}.${k} `.padEnd(36)}${v}`));
}

function offerLines(o: OfferExplanation): string[] {
  const st = o.stored;
  const head = st.shown
    ? `shown${st.rank !== null ? `, rank ${st.rank}` : ''}${st.result_id ? ` (result ${st.result_id})` : ''}`
    : `not shown: ${st.reason}${st.detail ? ` (${st.detail})` : ''}${st.partner ? `, partner ${st.partner}` : ''}`;
  const out = [`  ${named(o.offer)}${o.source ? `, ${o.source}` : ''}: ${head}`];
  if (o.rule) out.push(field('rule', o.rule));
  if (o.facts.length > 0) out.push(field('facts', factLine(o.facts)));
  if (!o.agrees)
    out.push(field('note', 'the rules asked again on the facts now come to another outcome (the stored decision is what happened)'));
  for (const p of o.programs) {
    out.push(
      field(
        'program',
        `${p.value} (${p.label}): ${p.eligible === null ? "not judged (the offer's own rules failed first)" : p.eligible ? 'eligible' : p.rule}`,
      ),
    );
    if (p.facts.length > 0) out.push(field('', factLine(p.facts), '      '));
  }
  return out;
}

function submitLines(sub: SubmitExplanation, asked: boolean): string[] {
  const d = sub.decision;
  return [
    `  Submit ${sub.id}${asked ? '  <- the id asked for' : ''}`,
    field(
      'offer',
      `${named(sub.offer)}${sub.program_id ? `, program ${sub.program_id}` : ''}; ${sub.kind.replace('_', ' ')} received ${sub.created_at}`,
    ),
    field(
      'decision',
      `${d.code ?? 'PENDING'} (${d.status})${d.reason ? `: ${d.reason}` : ''}${d.field ? ` [field ${d.field}]` : ''}${d.decided_by ? `, decided by ${d.decided_by} at ${d.decided_at}` : ''}`,
    ),
    ...(sub.rule ? [field('rule', sub.rule)] : []),
    ...(sub.facts.length > 0 ? [field('facts', factLine(sub.facts))] : []),
  ];
}
