import { formatTable } from '../text-table';
import type { Simulation } from './simulate-catalog';

const n = (v: number) => v.toLocaleString('en-US');
const money = (v: number) => v.toFixed(2);
const signed = (v: number) => (v > 0 ? `+${money(v)}` : money(v));
const RULES_SHOWN = 10;

/** `catalog simulate` for a terminal: per campaign and offer, before and after; then the rules behind the changes. */
export function formatSimulation(file: string, s: Simulation): string[] {
  const which = s.window.last !== null ? `the newest ${n(s.window.last)} asked` : `created in [${s.window.from}, ${s.window.to})`;
  const out = [
    `Simulation of ${file}: ${n(s.searches)} live searches (${which}) of ${n(s.campaigns.length)} campaign(s) replayed in ${s.seconds.toFixed(1)} s; ${n(s.searches_changed)} would show something else.`,
    "Replayed on each search's stored lead: eligibility, programs, ranking and one school per search. Taken as stored: caps, duplicates, sale state, partners' answers. Nothing was written.",
    '',
  ];
  out.push(
    ...formatTable(
      [
        { header: 'CAMPAIGN' },
        { header: 'OFFER' },
        { header: 'SHOWN BEFORE', align: 'right' },
        { header: 'SHOWN AFTER', align: 'right' },
        { header: 'LOST', align: 'right' },
        { header: 'GAINED', align: 'right' },
        { header: 'PAYOUT BEFORE', align: 'right' },
        { header: 'PAYOUT CHANGE', align: 'right' },
        { header: 'PRICE BEFORE', align: 'right' },
        { header: 'PRICE CHANGE', align: 'right' },
      ],
      [
        ...s.offers.map((o) => [
          `${o.campaign.name} (${o.campaign.id})`,
          `${o.offer.name} (${o.offer.id})`,
          n(o.shown_before),
          n(o.shown_after),
          n(o.lost),
          n(o.gained),
          money(o.payout_before),
          signed(o.payout_change),
          money(o.price_before),
          signed(o.price_change),
        ]),
        [
          'TOTAL',
          '',
          n(s.totals.shown_before),
          n(s.totals.shown_after),
          '',
          '',
          money(s.totals.payout_before),
          signed(s.totals.payout_change),
          money(s.totals.price_before),
          signed(s.totals.price_change),
        ],
      ],
    ),
  );
  out.push('', 'Rules that changed most outcomes (LOST: results the rule now leaves out; GAINED: results it no longer left out)');
  if (s.rules.length === 0) out.push('  none: every search shows what it showed');
  else
    out.push(
      ...formatTable(
        [{ header: 'RULE' }, { header: 'LOST', align: 'right' }, { header: 'GAINED', align: 'right' }],
        s.rules.slice(0, RULES_SHOWN).map((r) => [r.rule, n(r.lost), n(r.gained)]),
        '  ',
      ),
    );
  const changed = s.offers.filter((o) => o.lost + o.gained > 0);
  if (changed.length > 0) {
    out.push('', 'Searches that lose or gain an offer (first 3 each; --json lists up to 1,000)');
    for (const o of changed) {
      if (o.lost > 0) out.push(`  ${o.offer.name} lost on ${o.lost_search_ids.slice(0, 3).join(', ')}${o.lost > 3 ? ', …' : ''}`);
      if (o.gained > 0) out.push(`  ${o.offer.name} gained on ${o.gained_search_ids.slice(0, 3).join(', ')}${o.gained > 3 ? ', …' : ''}`);
    }
  }
  if (s.partner_unknown > 0)
    out.push(
      '',
      `${n(s.partner_unknown)} partner offer(s) would now be asked about where the search did not ask: their answer is unknown, counted as not shown.`,
    );
  return out;
}
