import { type Cents, centsOrNull, decimalText, type Decision, type ReturnFacts, type ReturnPolicy, type ReturnVerdict } from '@lr/domain';
import type { Queryable } from '../queries/queryable';
import { filled, run, statement, type WithDocuments } from '../queries/sql';

/**
 * The returns ledger (`lead_returns`, docs/returns.md): a school takes back a
 * lead it bought. The rule (libs/domain returns: window, reason codes, what
 * is reversed) runs in the caller on the facts read here; the invariant that
 * must hold under concurrency, one return per lead, is the table's primary
 * key, met by one statement: the return's row (its reversal entries and the
 * cap slots it gives back) and the cap slots' counts together, or nothing.
 * The sale and the lead are never updated: a statement adds the reversals.
 */

/** What a return is decided on ($1 the lead, $2 the school): the school's accepted sale of it with the offer's policy now, its return if any, the database's clock. */
const RETURN_FACTS = statement(
  'returnFacts',
  `SELECT
    (SELECT row_to_json(x) FROM (
       SELECT sa.offer_id, l.decided_at AS accepted_at, l.payout, sa.price, o.returns AS policy
         FROM sales sa JOIN leads l ON l.id = sa.lead_id JOIN offers o ON o.id = sa.offer_id
        WHERE sa.lead_id = $1 AND sa.school_id = $2 AND sa.status = 'accepted' AND l.status = 'accepted') x) AS sale,
    (SELECT row_to_json(x) FROM (SELECT returned_at, reason FROM lead_returns WHERE lead_id = $1 AND school_id = $2) x) AS returned,
    now() AS now`,
);

/**
 * The return, in one statement: its row appended unless the lead has one
 * (ON CONFLICT DO NOTHING: a concurrent return of the same lead waits for the
 * first to commit, then writes nothing), and, only with the row, each cap
 * slot it gives back counted one sale fewer. $1 lead, $2 school, $3 reason,
 * $4 note, $5 source, $6 key, $7-$8 the reversals, $9 whether the cap slots go back.
 */
const WRITE_RETURN = statement(
  'writeReturn',
  `WITH sale AS (
         SELECT sa.id, sa.lead_id, sa.offer_id, sa.school_id, sa.campaign_id, sa.affiliate_id, sa.cap_slots
           FROM sales sa WHERE sa.lead_id = $1 AND sa.school_id = $2 AND sa.status = 'accepted'
       ), returned AS (
         INSERT INTO lead_returns (lead_id, sale_id, offer_id, school_id, campaign_id, affiliate_id, reason, note, source, api_key_id,
                                   payout_reversal, price_reversal, cap_slots)
         SELECT sale.lead_id, sale.id, sale.offer_id, sale.school_id, sale.campaign_id, sale.affiliate_id, $3, $4, $5, $6::uuid,
                $7::numeric, $8::numeric, CASE WHEN $9::boolean THEN sale.cap_slots ELSE '[]'::jsonb END
           FROM sale
         ON CONFLICT (lead_id) DO NOTHING
         RETURNING returned_at, reason, offer_id, cap_slots
       ), slots AS (
         UPDATE cap_usage u SET used = u.used - 1, updated_at = now()
           FROM returned, jsonb_to_recordset(returned.cap_slots) AS x(scope text, period text, period_start timestamptz)
          WHERE u.scope = x.scope AND u.period = x.period AND u.period_start = x.period_start AND u.used > 0
         RETURNING 1
       )
       SELECT returned_at, reason, offer_id, (SELECT count(*) FROM slots)::int AS slots_freed FROM returned`,
);

/** A return asked for: by the buyer API (with the school's key) or an operator's import. */
export interface ReturnRequest {
  leadId: string;
  schoolId: string;
  reason: string;
  /** For operators only; bounded by the caller (RETURN_NOTE_MAX). */
  note: string | null;
  source: 'api' | 'import';
  apiKeyId: string | null;
}

export type ReturnOutcome =
  { kind: 'returned'; at: Date; reason: string; offerId: string; capSlotsFreed: number } | { kind: 'refused'; decision: Decision };

/** The JSON documents RETURN_FACTS builds. */
interface ReturnFactsDocuments {
  sale: {
    offer_id: string;
    accepted_at: string;
    payout: string | null;
    price: string | null;
    policy: { window_days: number; reasons: string[]; refunds_cap: boolean } | null;
  } | null;
  returned: { returned_at: string; reason: string } | null;
}

export class LeadReturns {
  constructor(private readonly db: Queryable) {}

  /** What a return of the lead by the school is decided on, now. */
  async facts(leadId: string, schoolId: string): Promise<ReturnFacts> {
    const [r] = (await run(this.db, RETURN_FACTS, [leadId, schoolId])) as Array<WithDocuments<'returnFacts', ReturnFactsDocuments>>;
    const s = r.sale;
    return {
      sale: s
        ? { offerId: s.offer_id, acceptedAt: new Date(s.accepted_at), payout: centsOrNull(s.payout), price: centsOrNull(s.price) }
        : null,
      policy: s?.policy ? policyOf(s.policy) : null,
      returned: r.returned ? { at: new Date(r.returned.returned_at), reason: r.returned.reason } : null,
      now: new Date(filled(r.now, 'now')),
    };
  }

  /**
   * Returns the lead if `decide` (the caller's rule on the facts now) allows
   * it: appends the return with its reversal entries and gives the cap slots
   * back as decided, in one statement. A concurrent return that got there
   * first leaves this one nothing to write: the facts are read again and
   * decided again (the rule then answers that the lead was returned).
   */
  async returnLead(q: ReturnRequest, decide: (facts: ReturnFacts) => ReturnVerdict): Promise<ReturnOutcome> {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const verdict = decide(await this.facts(q.leadId, q.schoolId));
      if (verdict.kind === 'refused') return verdict;
      const [row] = await run(this.db, WRITE_RETURN, [
        q.leadId,
        q.schoolId,
        q.reason,
        q.note,
        q.source,
        q.apiKeyId,
        amountText(verdict.payoutReversal),
        amountText(verdict.priceReversal),
        verdict.refundsCap,
      ]);
      if (row)
        return {
          kind: 'returned',
          at: new Date(row.returned_at),
          reason: row.reason,
          offerId: row.offer_id,
          capSlotsFreed: row.slots_freed ?? 0,
        };
    }
    throw new Error(`the return of lead ${q.leadId} was allowed twice but written neither time`);
  }
}

const amountText = (c: Cents | null): string | null => (c === null ? null : decimalText(c));

/** The catalog's `returns` as stored (CatalogReturnPolicy) in the domain's terms. */
export function policyOf(p: { window_days: number; reasons: string[]; refunds_cap: boolean }): ReturnPolicy {
  return { windowDays: p.window_days, reasons: p.reasons, refundsCap: p.refunds_cap };
}
