import type { Tally } from './chaos-driver';
import type { ChaosReport } from './chaos-run';
import { sumOf } from './fleet';

const byStatus = (t: Tally, ok: number[]) =>
  Object.entries(t.byStatus)
    .filter(([s]) => !ok.includes(Number(s)))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s} x${n}`)
    .join(', ') || 'none';

const codes = (m: Record<string, number>) =>
  Object.entries(m)
    .sort(([, a], [, b]) => b - a)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || 'none';

/** The fault run's figures as text: context first, then the required figures with PASS or FAIL. */
export function renderChaosReport(r: ChaosReport): string {
  const x = r.reconciliation;
  const o = r.options;
  const rows: Array<[string, number | string, string]> = [
    ['submits sent', r.submits.sent, ''],
    ['decisions stored', x.decisionsStored, ''],
    ['lost', x.lostTotal, '0'],
    ['delivered twice', x.deliveredTwice.total, '0'],
    ['delivered but not accepted (schools: idempotent buyers)', x.deliveredNotAccepted.school.length, '0'],
    ['retries answered differently from the original', x.retriesAnsweredDifferently.length, '0'],
    ['caps filled', x.capsFilled, '> 0'],
    ['cap overshoots', x.capOvershoots.length, '0'],
    ['lead groups at their sale limit', x.groupsAtSaleLimit, '> 0'],
    ['sale-limit overshoots', x.saleLimitOvershoots.length, '0'],
    ['person sold twice to one offer', x.duplicateSales, '0'],
    ['answers contradicting the store', x.answerMismatches.length, '0'],
    ['redeliveries seen', r.redeliveries, '> 0'],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  const table = rows.map(([k, v, req]) => `  ${k.padEnd(w)}  ${String(v).padStart(6)}${req ? `   (required: ${req})` : ''}`);
  const counters = r.counters;
  const perApp = (name: Parameters<typeof sumOf>[1]) =>
    Object.entries(counters[name])
      .filter(([, n]) => n > 0)
      .map(([app, n]) => `${app} ${n}`)
      .join(', ') || 'none';
  const lines = [
    `Fault run ${r.run}: ${r.driveSeconds} s of traffic from ${o.clients} clients, seed ${o.seed}, broker outage by ${o.brokerFault}`,
    '',
    'faults:',
    ...r.faults.map(
      (f) =>
        `  ${String(f.at).padStart(6)} s  ${f.fault === 'broker' ? `broker outage (${o.brokerFault}, ${o.brokerOutageMs} ms)` : `${f.fault} SIGKILL`}; ready again after ${f.downMs} ms${f.note ? `; ${f.note}` : ''}`,
    ),
    '',
    'answers over time (ok / failed; the faults that began in the window):',
    ...timeline(r),
    '',
    `searches: sent ${r.searches.sent}, answered ${r.searches.answered(200)}; errors: ${byStatus(r.searches, [200])}`,
    `polls: sent ${r.polls.sent}, answered ${r.polls.answered(200)}; errors: ${byStatus(r.polls, [200])}`,
    `submits: sent ${r.submits.sent}, taken (200/202 with a svc_lead_id) ${r.submits.taken}, PENDING answers ${r.submits.pendingAnswers} ` +
      `(decided after: ${r.submits.decidedAfterPending}); errors: ${byStatus(r.submits, [200, 202])}`,
    `error answers: searches ${codes(r.searches.errors)}; submits ${codes(r.submits.errors)}`,
    `lead-status reads: sent ${r.statusReads.sent}; errors: ${byStatus(r.statusReads, [200])}`,
    `decisions stored: ${codes(x.decisionsByCode)}`,
    `sales: ${codes(x.sales)}; leads received by buyers ${x.delivered} (sale released: ${x.receivedButReleased})`,
    `deliveries to buyers by outcome: ${codes(x.attempts)}`,
    `stored and decided although the driver got no svc_lead_id, by the answer it got: ${codes(x.storedUnknownToDriver)}`,
    `cap slots drift (cap_usage.used differs from live sales holding a slot): ${x.capDrift.length}`,
    `submits retried with their Idempotency-Key after no answer or a 503: ${x.retriedSubmits}; leads sent again to a school after a crash cut the call: ${perApp('delivery_buyer_resends_total')}`,
    `delivered but not accepted by partners (sent once; to reconcile, ops deliveries unresolved): ${x.deliveredNotAccepted.partner.length}; unresolved deliveries counted: ${perApp('delivery_unresolved_total')}`,
    `settle: ${r.settle.seconds} s, ${r.settle.settled ? 'settled' : 'NOT settled'} (undecided ${r.settle.undecidedByDriver}, pending ${r.settle.pendingInDatabase}, queued ${r.settle.queued}); dead-lettered messages ${r.settle.deadLettered}`,
    `redeliveries by app: ${perApp('messaging_redeliveries_total')}`,
    `retries by app: ${perApp('messaging_messages_retried_total')}; request timeouts: ${perApp('messaging_request_timeouts_total')}; dead-lettered: ${perApp('messaging_messages_dead_lettered_total')}`,
    '',
    ...table,
    '',
    ...details(r),
    r.failures.length === 0
      ? 'PASS: nothing lost, nothing delivered twice, no school holding a lead the service did not accept, no retry answered differently, no cap or sale rule broken, and the faults hit in-flight work'
      : `FAIL: ${r.failures.join('; ')}`,
  ];
  return lines.join('\n');
}

/** Searches and submits per time window: how the errors follow the faults. */
function timeline(r: ChaosReport): string[] {
  const step = Math.max(5, Math.ceil(r.driveSeconds / 24 / 5) * 5);
  const windows = Math.ceil(r.driveSeconds / step);
  const count = (t: Tally, i: number, ok: (s: number) => boolean) => {
    let good = 0;
    let bad = 0;
    for (const [ms, status] of t.timeline) {
      if (Math.floor(ms / 1000 / step) !== i) continue;
      if (ok(status)) good++;
      else bad++;
    }
    return `${good} / ${bad}`;
  };
  const out: string[] = [];
  for (let i = 0; i < windows; i++) {
    const faults = r.faults
      .filter((f) => Math.floor(f.at / step) === i)
      .map((f) => (f.fault === 'broker' ? 'broker outage' : `${f.fault} killed`));
    const span = `${i * step}-${(i + 1) * step} s`;
    out.push(
      `  ${span.padStart(11)}  searches ${count(r.searches, i, (x) => x === 200).padEnd(9)} submits ${count(r.submits, i, (x) => x === 200 || x === 202).padEnd(9)}${faults.join(', ')}`,
    );
  }
  return out;
}

/** The ids behind every non-zero required figure (at most 10 each), to start an investigation from. */
function details(r: ChaosReport): string[] {
  const x = r.reconciliation;
  const some = <T>(items: T[]) => items.slice(0, 10).map((i) => `    ${typeof i === 'string' ? i : JSON.stringify(i)}`);
  const out: string[] = [];
  const add = (title: string, items: unknown[]) => {
    if (items.length > 0) out.push(`  ${title} (${items.length}):`, ...some(items));
  };
  add('taken by the gateway, no final decision', x.lost.takenNotDecided);
  add('pending in PostgreSQL after the settle', x.lost.pendingInDatabase);
  add('received by a buyer without a sale', x.lost.receivedWithoutSale);
  add('received more than once', x.deliveredTwice.leads);
  add('cap overshoots', x.capOvershoots);
  add('sale-limit overshoots', x.saleLimitOvershoots);
  add('answers contradicting the store', x.answerMismatches);
  add('cap slots drift', x.capDrift);
  add('delivered to a school but not accepted', x.deliveredNotAccepted.school);
  add('retries answered differently', x.retriesAnsweredDifferently);
  if (x.deliveredTwice.replayedSchoolCalls + x.deliveredTwice.replayedPartnerCalls > 0) {
    out.push(
      `  repeat calls answered from an Idempotency-Key: schools ${x.deliveredTwice.replayedSchoolCalls}, partners ${x.deliveredTwice.replayedPartnerCalls}`,
    );
  }
  if (out.length > 0) out.push('');
  return out;
}
