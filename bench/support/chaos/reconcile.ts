import type { Client } from 'pg';
import { capScope } from '../../../libs/domain/src/caps/caps';
import type { FailedSubmit, KeyedSubmit, SubmitRecord } from './chaos-driver';

/** A lead a buyer (sandbox school or partner) received, by our lead id (its Idempotency-Key). */
export interface Receipts {
  /** lead id -> receipts of leads the buyer processed (accepted, rejected, duplicate), over every school and partner of the run; 0 for a lead whose every call failed. */
  byLead: Map<string, number>;
  /** Receipts of calls the buyer did not process (answered 500, or never): each may be followed by a repeat of its key. */
  unprocessed: number;
  /** lead id -> the kind of buyer that received it, for the buyers that accept every lead (ChaosNames.accepting). */
  byAcceptingBuyer: Map<string, 'school' | 'partner'>;
  /** Receipts recorded in all (the sandbox keeps at most 10,000 per name; `total` tells if some were dropped). */
  listed: number;
  total: number;
  /** Repeat calls with a known Idempotency-Key the sandbox answered from its memory (no second receipt). */
  replayed: { school: number; partner: number };
  /** Leads delivery sent again to a school after a crash cut the call (delivery_buyer_resends_total): each may be one replayed school call. */
  resent: number;
}

/** Reads what every school and partner of the run received. */
export async function readReceipts(
  sandboxUrl: string,
  names: { schools: string[]; partners: string[]; accepting: { schools: string[]; partners: string[] } },
  replayed: Receipts['replayed'],
  resent: number,
): Promise<Receipts> {
  const byLead = new Map<string, number>();
  let unprocessed = 0;
  const byAcceptingBuyer = new Map<string, 'school' | 'partner'>();
  const accepting = new Map<string, 'school' | 'partner'>([
    ...names.accepting.schools.map((n) => [`schools/${n}`, 'school'] as const),
    ...names.accepting.partners.map((n) => [`partners/${n}`, 'partner'] as const),
  ]);
  let listed = 0;
  let total = 0;
  const lists = [...names.schools.map((n) => `schools/${n}`), ...names.partners.map((n) => `partners/${n}`)];
  for (const path of lists) {
    const res = await fetch(`${sandboxUrl}/${path}/received?limit=10000`, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`GET ${path}/received answered ${res.status}`);
    const body = (await res.json()) as { leads: Array<{ headers: Record<string, string>; outcome?: string }>; total_received: number };
    listed += body.leads.length;
    total += body.total_received;
    for (const l of body.leads) {
      const key = l.headers['idempotency-key'] ?? '(none)';
      // A receipt the buyer answered 500 or never answered (`error`, `timeout`) is a call it did not process: it keeps no
      // lead, and a repeat of the key is processed afresh (docs/sandbox.md). Such a receipt counts as a call, not a lead held.
      if (l.outcome === 'error' || l.outcome === 'timeout') {
        unprocessed += 1;
        if (!byLead.has(key)) byLead.set(key, 0);
        continue;
      }
      byLead.set(key, (byLead.get(key) ?? 0) + 1);
      const kind = accepting.get(path);
      if (kind) byAcceptingBuyer.set(key, kind);
    }
  }
  return { byLead, byAcceptingBuyer, listed, total, unprocessed, replayed, resent };
}

export interface Reconciliation {
  leadsStored: number;
  decisionsStored: number;
  decisionsByCode: Record<string, number>;
  /** Every way a submit can be lost, by lead id. */
  lost: {
    /** The gateway took it (200/202 with a svc_lead_id) and no decision is stored. */
    takenNotDecided: string[];
    /** Stored and still pending after the settle period. */
    pendingInDatabase: string[];
    /** A buyer received it and there is no sale (reserved, accepted or released) for it. */
    receivedWithoutSale: string[];
  };
  lostTotal: number;
  /** The driver's final answer differs from the stored decision. */
  answerMismatches: Array<{ leadId: string; answered: string; stored: string }>;
  /**
   * A buyer that recorded one lead twice (`leads`); `total` counts them. Calls
   * repeated with a known Idempotency-Key (a lead sent again after a crash cut
   * its call) are answered from the buyer's memory and record nothing: they are
   * context, not double deliveries.
   */
  deliveredTwice: { leads: string[]; replayedSchoolCalls: number; replayedPartnerCalls: number; total: number };
  /**
   * Leads a buyer that accepts every lead received whose decision is not
   * ACCEPTED (the service and the buyer disagree): `school` (buyers that honour
   * idempotency keys: must be none) and `partner` (sent once; to reconcile,
   * `ops deliveries unresolved`).
   */
  deliveredNotAccepted: { school: string[]; partner: string[] };
  /** Submits sent again with their Idempotency-Key after no answer or a 503. */
  retriedSubmits: number;
  /**
   * Retried submits whose answers disagree: two svc_lead_ids, or two different
   * final decisions (a PENDING answer followed by its decision agrees).
   */
  retriesAnsweredDifferently: Array<{ key: string; answers: KeyedSubmit['answers'] }>;
  capOvershoots: Array<{ scope: string; period: string; periodStart: string; limit: number; used: number; liveSales: number }>;
  /** cap_usage.used differs from the live sales holding a slot in it (slots leaked or lost); context. */
  capDrift: Array<{ scope: string; period: string; periodStart: string; used: number; liveSales: number }>;
  saleLimitOvershoots: Array<{ leadGroupId: string; rule: string; liveSales: number }>;
  /** Caps that reached their limit, and lead groups sold 3 times or sold true_exclusive: proof the rules were tested. */
  capsFilled: number;
  groupsAtSaleLimit: number;
  /** A person sold twice to one offer (two live sales sharing a dedupe key). */
  duplicateSales: number;
  /** Buyers received it and the sale was released (the buyer refused or failed, or a kill cut the call); context. */
  receivedButReleased: number;
  /** Deliveries to buyers by how they ended (`interrupted`: the worker died during the call; decided "No response - Client"). */
  attempts: Record<string, number>;
  /** Submits that reached the buyer. */
  delivered: number;
  /**
   * Stored leads the driver has no svc_lead_id for, by the answer of the submit
   * that matches them (same result; same offer and lead group for a direct
   * post): `503` (the gateway said "retry" although the broker had taken the
   * submit), `no answer` (the gateway was killed), `unmatched`.
   */
  storedUnknownToDriver: Record<string, number>;
  /** Sales by status. */
  sales: Record<string, number>;
}

/**
 * Compares PostgreSQL (leads, sales, cap_usage, delivery_attempts), the
 * sandbox's receipts and the driver's answers, after the system settled.
 */
export async function reconcile(
  db: Client,
  campaignId: string,
  driver: { leads: Map<string, SubmitRecord>; failedSubmits: FailedSubmit[]; keyedSubmits: KeyedSubmit[] },
  receipts: Receipts,
): Promise<Reconciliation> {
  const driverLeads = driver.leads;
  const leads = (
    await db.query<{ id: string; status: string; code: string; result_id: string | null; offer_id: string; lead_group_id: string }>(
      `SELECT id, status, code, result_id, offer_id, lead_group_id FROM leads WHERE campaign_id = $1`,
      [campaignId],
    )
  ).rows;
  const stored = new Map(leads.map((l) => [l.id, l]));
  const decisionsByCode: Record<string, number> = {};
  for (const l of leads) if (l.status !== 'pending') decisionsByCode[l.code] = (decisionsByCode[l.code] ?? 0) + 1;

  const takenNotDecided = [...driverLeads.values()]
    .filter((d) => {
      const row = stored.get(d.leadId);
      return !row || row.status === 'pending' || d.finalCode === undefined || d.finalCode === 'PENDING';
    })
    .map((d) => d.leadId);
  const pendingInDatabase = leads.filter((l) => l.status === 'pending').map((l) => l.id);

  const sales = (
    await db.query<{ lead_id: string; status: string }>(`SELECT lead_id, status FROM sales WHERE campaign_id = $1`, [campaignId])
  ).rows;
  const saleOf = new Map(sales.map((s) => [s.lead_id, s.status]));
  const salesByStatus: Record<string, number> = {};
  for (const s of sales) salesByStatus[s.status] = (salesByStatus[s.status] ?? 0) + 1;
  const receivedWithoutSale = [...receipts.byLead.keys()].filter((id) => !saleOf.has(id));
  const receivedButReleased = [...receipts.byLead.keys()].filter((id) => saleOf.get(id) === 'released').length;
  const lostIds = new Set([...takenNotDecided, ...pendingInDatabase, ...receivedWithoutSale]);

  const answerMismatches = [...driverLeads.values()]
    .filter(
      (d) => d.finalCode !== undefined && d.finalCode !== 'PENDING' && stored.has(d.leadId) && stored.get(d.leadId)!.code !== d.finalCode,
    )
    .map((d) => ({ leadId: d.leadId, answered: d.finalCode!, stored: stored.get(d.leadId)!.code }));

  const twice = [...receipts.byLead.entries()].filter(([, n]) => n > 1).map(([id]) => id);
  const retried = driver.keyedSubmits.filter((k) => k.answers.length > 1);
  const retriesAnsweredDifferently = retried
    .filter((k) => {
      const ids = new Set(k.answers.flatMap((a) => (a.leadId ? [a.leadId] : [])));
      const decided = new Set(k.answers.flatMap((a) => (a.status === 200 && a.code && a.code !== 'PENDING' ? [a.code] : [])));
      return ids.size > 1 || decided.size > 1;
    })
    .map((k) => ({ key: k.key, answers: k.answers }));
  const deliveredNotAccepted = { school: [] as string[], partner: [] as string[] };
  for (const [id, kind] of receipts.byAcceptingBuyer) if (stored.get(id)?.status !== 'accepted') deliveredNotAccepted[kind].push(id);

  // Caps: every cap of the campaign's offers (offer caps and this campaign's caps), named by the domain's scope
  // (libs/domain capScope), against its usage rows and live sales.
  const caps = (
    await db.query<{ offer_id: string; campaign_id: string | null; period: string; limit: number }>(
      `SELECT c.offer_id, c.campaign_id, c.period, c."limit"
         FROM caps c JOIN campaign_offers co ON co.offer_id = c.offer_id AND co.campaign_id = $1
        WHERE c.campaign_id IS NULL OR c.campaign_id = $1`,
      [campaignId],
    )
  ).rows.map((c) => ({ scope: capScope(c.offer_id, c.campaign_id), period: c.period, limit: c.limit }));
  const counted = (
    await db.query<{ scope: string; period: string; period_start: Date; used: number; live: number }>(
      `WITH usage AS (
         SELECT u.scope, u.period, u.period_start, u.used FROM cap_usage u WHERE u.scope = ANY($2::text[])),
       live AS (
         SELECT slot->>'scope' AS scope, slot->>'period' AS period, (slot->>'period_start')::timestamptz AS period_start, count(*)::int AS n
           FROM sales s, jsonb_array_elements(s.cap_slots) slot
          WHERE s.campaign_id = $1 AND s.status <> 'released'
          GROUP BY 1, 2, 3)
       SELECT COALESCE(u.scope, l.scope) AS scope, COALESCE(u.period, l.period) AS period, COALESCE(u.period_start, l.period_start) AS period_start,
              COALESCE(u.used, 0) AS used, COALESCE(l.n, 0) AS live
         FROM usage u
         FULL JOIN live l ON l.scope = u.scope AND l.period = u.period AND l.period_start = u.period_start`,
      [campaignId, caps.map((c) => c.scope)],
    )
  ).rows;
  const capRows = counted.flatMap((r) => {
    const cap = caps.find((c) => c.scope === r.scope && c.period === r.period);
    return cap ? [{ ...r, limit: cap.limit }] : [];
  });
  const slot = (r: (typeof capRows)[number]) => ({
    scope: r.scope,
    period: r.period,
    periodStart: r.period_start ? new Date(r.period_start).toISOString() : '-',
  });
  const capOvershoots = capRows
    .filter((r) => r.used > r.limit || r.live > r.limit)
    .map((r) => ({ ...slot(r), limit: r.limit, used: r.used, liveSales: r.live }));
  const capDrift = capRows.filter((r) => r.used !== r.live).map((r) => ({ ...slot(r), used: r.used, liveSales: r.live }));

  // Sale limits per lead group: at most 3 live sales; a true_exclusive sale alone; a school that bought exclusively alone with its school.
  const groups = (
    await db.query<{ lead_group_id: string; live: number; true_exclusive: number }>(
      `SELECT lead_group_id, count(*)::int AS live, count(*) FILTER (WHERE offer_type = 'true_exclusive')::int AS true_exclusive
         FROM sales WHERE campaign_id = $1 AND status <> 'released' GROUP BY lead_group_id`,
      [campaignId],
    )
  ).rows;
  const exclusiveClashes = (
    await db.query<{ lead_group_id: string; live: number }>(
      `SELECT lead_group_id, count(*)::int AS live FROM sales WHERE campaign_id = $1 AND status <> 'released'
        GROUP BY lead_group_id, school_id HAVING bool_or(offer_type = 'exclusive') AND count(*) > 1`,
      [campaignId],
    )
  ).rows;
  const saleLimitOvershoots: Reconciliation['saleLimitOvershoots'] = [];
  for (const g of groups) {
    if (g.live > 3)
      saleLimitOvershoots.push({ leadGroupId: g.lead_group_id, rule: 'more than max_accepted_submissions (3)', liveSales: g.live });
    if (g.true_exclusive > 0 && g.live > 1)
      saleLimitOvershoots.push({ leadGroupId: g.lead_group_id, rule: 'true_exclusive sale plus another', liveSales: g.live });
  }
  const groupsAtSaleLimit = groups.filter((g) => g.live >= 3 || g.true_exclusive > 0).length;
  for (const c of exclusiveClashes)
    saleLimitOvershoots.push({ leadGroupId: c.lead_group_id, rule: 'school that bought exclusively sold again', liveSales: c.live });
  const duplicateSales = Number(
    (
      await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM (
           SELECT d.key_type, d.key_hash, d.offer_id FROM dedupe_keys d JOIN sales s ON s.lead_id = d.lead_id
            WHERE s.campaign_id = $1 AND s.status <> 'released'
            GROUP BY 1, 2, 3 HAVING count(DISTINCT d.lead_id) > 1) dup`,
        [campaignId],
      )
    ).rows[0].n,
  );
  const attempts: Record<string, number> = {};
  const attemptRows = (
    await db.query<{ outcome: string | null; n: number }>(
      `SELECT a.outcome, count(*)::int AS n FROM delivery_attempts a JOIN leads l ON l.id = a.lead_id WHERE l.campaign_id = $1 GROUP BY 1`,
      [campaignId],
    )
  ).rows;
  for (const a of attemptRows) attempts[a.outcome ?? 'unfinished'] = a.n;
  const storedUnknownToDriver: Record<string, number> = {};
  for (const l of leads.filter((x) => !driverLeads.has(x.id))) {
    const origin = l.lead_group_id === l.id ? null : l.lead_group_id;
    const matches = driver.failedSubmits.filter((f) =>
      l.result_id ? f.resultId === l.result_id : f.resultId === null && f.offerId === l.offer_id && f.originLeadId === origin,
    );
    const statuses = new Set(matches.map((f) => (f.status === 'transport' ? 'no answer' : String(f.status))));
    const label = statuses.size === 1 ? [...statuses][0] : statuses.size === 0 ? 'unmatched' : 'ambiguous';
    storedUnknownToDriver[label] = (storedUnknownToDriver[label] ?? 0) + 1;
  }

  return {
    leadsStored: leads.length,
    decisionsStored: leads.length - pendingInDatabase.length,
    decisionsByCode,
    lost: { takenNotDecided, pendingInDatabase, receivedWithoutSale },
    lostTotal: lostIds.size,
    answerMismatches,
    deliveredNotAccepted,
    retriedSubmits: retried.length,
    retriesAnsweredDifferently,
    deliveredTwice: {
      leads: twice,
      replayedSchoolCalls: receipts.replayed.school,
      replayedPartnerCalls: receipts.replayed.partner,
      // A replayed school call beyond delivery's resends, or any replayed partner call, is a lead sent twice.
      total: twice.length + Math.max(0, receipts.replayed.school - receipts.resent) + receipts.replayed.partner,
    },
    capOvershoots,
    capDrift,
    saleLimitOvershoots,
    capsFilled: capRows.filter((r) => r.used >= r.limit).length,
    groupsAtSaleLimit,
    duplicateSales,
    receivedButReleased,
    attempts,
    delivered: receipts.byLead.size,
    storedUnknownToDriver,
    sales: salesByStatus,
  };
}
