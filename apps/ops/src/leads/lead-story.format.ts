import { formatTable } from '../text-table';
import type { MaskedLead } from './contact-mask';
import type { LeadStory, Named, SubmitPart } from './lead-story';

const LABEL_WIDTH = 22;
const field = (label: string, value: string, indent = '  ', width = LABEL_WIDTH) =>
  `${indent}${`${label} `.padEnd(width)}${value}`.trimEnd();
const named = (n: Named) => (n.name ? `${n.name} (${n.id})` : n.id);
const yesNo = (b: boolean | null) => (b === null ? '-' : b ? 'yes' : 'no');
const orDash = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' ? '-' : String(v));
const money = (v: number | null) => (v === null ? 'none configured' : v.toFixed(2));
const pairs = (o: Record<string, string>) => {
  const entries = Object.entries(o).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '-' : entries.map(([k, v]) => `${k}=${v}`).join(', ');
};

/** `lead show` for a terminal: the story top to bottom, sections in the order things happened. */
export function formatLeadStory(story: LeadStory): string[] {
  const out: string[] = [];
  const s = story.search;
  const first = story.submits.find((x) => x.id === story.lead_group_id);
  out.push(
    story.asked.is === 'search'
      ? `Lead ${story.asked.id}: a search with ${count(story.submits.length, 'submit')}`
      : `Lead ${story.asked.id}: a ${story.submits.find((x) => x.id === story.asked.id)?.kind.replace('_', ' ')} in lead group ${story.lead_group_id}`,
  );
  out.push('');
  if (s) {
    out.push(`Search ${s.id}`);
    out.push(
      field('affiliate', named(s.affiliate)),
      field('campaign', named(s.campaign)),
      field('api key', `${s.api_key.prefix ?? '?'}… (${s.api_key.id})`),
      field('created', s.created_at),
      field('closes', s.closes_at),
      field('done', orDash(s.processing_done_at)),
      field('test', yesNo(s.is_test)),
      field('consumer ip', `${s.consumer_ip} (${s.ip_source})`),
      field('tracking', pairs(s.tracking)),
      field(
        'tcpa consent',
        s.tcpa_consent === null
          ? 'not sent with the search'
          : `${yesNo(s.tcpa_consent)} (as sent with the search; each submit's own is below)`,
      ),
      field('form cert url', orDash(s.form_cert_url)),
      field('universal lead id', orDash(s.universal_lead_cert)),
      field('first submitted', orDash(s.submitted_at)),
      field('sold', `${s.accepted_count} time(s)${s.true_exclusive_accepted ? ', true exclusive' : ''}`),
    );
  } else if (first) {
    out.push(`Direct post group ${story.lead_group_id} (no search): first post at ${first.created_at}`);
  }
  const heading = story.lead_sealed ? 'Lead (contact data sealed: --reveal opens it, audited)' : 'Lead (contact data masked)';
  out.push('', heading, ...formatLead(story.lead, '  '));

  if (s) {
    out.push('', `Results shown (${story.results.length})`);
    if (story.results.length > 0) {
      out.push(
        ...formatTable(
          [
            { header: 'RANK', align: 'right' },
            { header: 'RESULT' },
            { header: 'OFFER' },
            { header: 'SCHOOL' },
            { header: 'SOURCE' },
            { header: 'TYPE' },
            { header: 'PAYOUT', align: 'right' },
            { header: 'PROGRAMS (payout shown)' },
            { header: 'SHOWN AT' },
          ],
          story.results.map((r) => [
            orDash(r.rank),
            r.id,
            named(r.offer),
            orDash(r.school),
            r.partner ? `partner ${r.partner}` : r.offer.source,
            r.offer.offer_type,
            r.payout === null ? '-' : r.payout.toFixed(2),
            r.programs.map((p) => `${p.value}${p.payout === null ? '' : ` ${p.payout.toFixed(2)}`}`).join(', ') || '-',
            r.shown_at,
          ]),
          '  ',
        ),
      );
    }
    out.push('', 'Checks at search (every offer on the campaign: shown, or why not)');
    out.push(
      ...formatTable(
        [{ header: 'OFFER' }, { header: 'SHOWN' }, { header: 'REASON' }, { header: 'DETAIL' }],
        story.offer_checks.map((c) => [
          named(c.offer),
          yesNo(c.shown),
          c.shown ? `result ${c.result_id}` : orDash(c.reason),
          [c.detail, c.partner ? `partner ${c.partner}` : null].filter(Boolean).join('; ') || '-',
        ]),
        '  ',
      ),
    );
    if (story.partner_calls.length > 0) {
      out.push('', 'Partner networks asked');
      out.push(
        ...formatTable(
          [
            { header: 'PARTNER' },
            { header: 'STATUS' },
            { header: 'REQUESTED' },
            { header: 'ANSWERED' },
            { header: 'LATENCY MS', align: 'right' },
            { header: 'RESULTS', align: 'right' },
            { header: 'DETAIL' },
          ],
          story.partner_calls.map((c) => [
            named(c.partner),
            c.status,
            c.requested_at,
            orDash(c.answered_at),
            orDash(c.latency_ms),
            orDash(c.result_count),
            orDash(c.detail),
          ]),
          '  ',
        ),
      );
    }
  }

  out.push('', `Submits in this lead group (${story.submits.length})`);
  if (story.submits.length === 0) out.push('  none: the lead was searched but never submitted');
  for (const sub of story.submits) out.push('', ...formatSubmit(sub, sub.id === story.asked.id));
  return out;
}

function formatSubmit(sub: SubmitPart, asked: boolean): string[] {
  const d = sub.decision;
  const out = [`  Submit ${sub.id}${asked ? '  <- the id asked for' : ''}`];
  const f = (label: string, value: string) => field(label, value, '    ');
  out.push(
    f('kind', `${sub.kind.replace('_', ' ')}${sub.origin_lead_id ? ` (retry of ${sub.origin_lead_id})` : ''}`),
    f('offer', `${named(sub.offer)}, ${sub.offer.source}${sub.school ? `, school ${sub.school}` : ''}`),
    f('result', orDash(sub.result_id)),
    f('affiliate', named(sub.affiliate)),
    f('campaign', named(sub.campaign)),
    f('program', orDash(sub.program_id)),
    f('answers', pairs(sub.answers)),
    f('test', yesNo(sub.is_test)),
    f('received', sub.created_at),
    f('consumer ip', `${sub.consumer_ip} (${sub.ip_source})`),
    f('tracking', pairs(sub.tracking)),
    f('decision', `${orDash(d.code)} (${d.status})${d.reason ? `: ${d.reason}` : ''}${d.field ? ` [field ${d.field}]` : ''}`),
    f('decided', d.decided_at ? `${d.decided_at} by ${orDash(d.decided_by)}` : 'not yet (pending)'),
    f('payout', d.status === 'accepted' ? money(d.payout) : `${money(d.payout)} (paid only when accepted)`),
  );
  if (sub.lead) out.push(f('lead as delivered', ''), ...formatLead(sub.lead, '      '));
  const c = sub.consent;
  out.push(
    c
      ? f('consent', `${yesNo(c.tcpa_consent)} at ${c.consented_at} from ${c.ip}; button ${JSON.stringify(c.button_label ?? '')}`)
      : f('consent', 'none stored (tcpa_consent was not sent)'),
  );
  if (c) {
    out.push(
      f('  statement', orDash(c.tcpa_text)),
      f('  form cert url', orDash(c.form_cert_url)),
      f('  universal lead id', orDash(c.universal_lead_cert)),
    );
  }
  const sale = sub.sale;
  out.push(
    sale
      ? f(
          'sale',
          `${sale.status}, ${sale.offer_type}, payout ${money(sale.payout)}, price ${money(sale.price)}; reserved ${sale.created_at}, last change ${sale.updated_at}`,
        )
      : f('sale', 'none (no reservation: refused by the checks, held as a test lead, or still pending)'),
  );
  if (sale) {
    if (sale.cap_slots.length === 0) out.push(f('cap slots', 'none (no cap on this offer)'));
    for (const slot of sale.cap_slots) {
      const now = slot.limit === null ? 'cap since removed' : `${orDash(slot.used_now)} of ${slot.limit} used now`;
      out.push(
        f('cap slot', `${slot.scope} ${slot.period} from ${slot.period_start} (${now})${sale.status === 'released' ? ', given back' : ''}`),
      );
    }
  }
  const x = sub.return;
  if (x) {
    const slots =
      x.cap_slots_freed.length === 0
        ? 'no cap slot given back'
        : `${x.cap_slots_freed.length} cap slot${x.cap_slots_freed.length === 1 ? '' : 's'} given back`;
    out.push(
      f(
        'returned',
        `${x.returned_at} by the school (${x.source}), reason ${x.reason}; payout reversed ${money(x.payout_reversal)}, price reversed ${money(x.price_reversal)}; ${slots}`,
      ),
    );
    if (x.note) out.push(f('  note', x.note));
  } else if (sale?.status === 'accepted') {
    out.push(f('returned', 'no'));
  }
  out.push(f('dedupe keys', sub.dedupe_keys.length > 0 ? sub.dedupe_keys.join(', ') : 'none held'));
  if (sub.delivery_attempts.length === 0) {
    out.push(f('delivery', 'no attempt (never sent to the buyer)'));
  } else {
    out.push(f('delivery', ''));
    out.push(
      ...formatTable(
        [
          { header: '#', align: 'right' },
          { header: 'STARTED' },
          { header: 'FINISHED' },
          { header: 'DURATION MS', align: 'right' },
          { header: 'OUTCOME' },
          { header: 'HTTP', align: 'right' },
          { header: 'LATENCY MS', align: 'right' },
          { header: 'DETAIL' },
        ],
        sub.delivery_attempts.map((a) => [
          String(a.attempt),
          a.started_at,
          orDash(a.finished_at),
          orDash(a.duration_ms),
          a.outcome ?? 'unfinished',
          orDash(a.http_status),
          orDash(a.latency_ms),
          orDash(a.detail),
        ]),
        '      ',
      ),
    );
  }
  return out;
}

function formatLead(lead: MaskedLead, indent: string): string[] {
  const rows = Object.entries(lead).flatMap(([group, fields]) => Object.entries(fields).map(([k, v]) => [`${group}.${k}`, v] as const));
  const width = Math.max(LABEL_WIDTH, ...rows.map(([label]) => label.length + 2));
  return rows.length > 0 ? rows.map(([label, v]) => field(label, v, indent, width)) : [`${indent}(no lead data stored)`];
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
