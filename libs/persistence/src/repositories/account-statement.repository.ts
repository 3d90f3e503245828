import { type Cents, centsOrNull } from '@lr/domain';
import { DataSource } from 'typeorm';
import { filled, inTransaction, poolOf, type RowOf, statement } from '../queries/sql';

/**
 * The read model behind `ops statement` (docs/returns.md, "Statements"): an
 * affiliate's or a school's accepted leads of a window with their amount (the
 * payout booked, or the sale's price), and the returns booked in the window
 * with their reversal. Read from one snapshot (REPEATABLE READ, read only)
 * through two server-side cursors, a batch of rows at a time, so a statement
 * of any length is streamed, never held whole.
 *
 * An accepted lead belongs to the window it was received in (`leads.created_at`,
 * as `ops report` counts submits), so a statement's accepted leads and their
 * payouts are the report's ACCEPTED and PAYOUTS for the same window and
 * affiliate. A return belongs to the window it was booked in
 * (`lead_returns.returned_at`), whichever window its lead was: a statement
 * once sent never changes.
 */

export type StatementParty = { affiliateId: string } | { schoolId: string };

export interface StatementWindow {
  party: StatementParty;
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
}

export interface AcceptedLine {
  leadId: string;
  offerId: string;
  campaignId: string;
  receivedAt: Date;
  acceptedAt: Date;
  /** The affiliate's payout (null: none configured), or the school's price. */
  amount: Cents | null;
}

export interface ReturnLine {
  leadId: string;
  offerId: string;
  campaignId: string;
  receivedAt: Date;
  returnedAt: Date;
  reason: string;
  /** The reversal of the payout or of the price (zero or negative; null when nothing was booked). */
  amount: Cents | null;
}

export interface StatementSink {
  accepted(lines: AcceptedLine[]): void | Promise<void>;
  returns(lines: ReturnLine[]): void | Promise<void>;
}

/** Rows fetched from a cursor at a time. */
export const STATEMENT_BATCH = 5000;

/**
 * The accepted leads of the window, oldest first. A school's are found
 * through its sales: a sale is written after its lead was received (a day of
 * slack covers the gateway's clock against PostgreSQL's), so its
 * `ix_sales_school_created` range bounds the scan; the window itself is the
 * lead's receipt, as for an affiliate.
 */
const ACCEPTED = {
  affiliate: statement(
    'statementAcceptedOfAffiliate',
    `SELECT l.id, l.offer_id, l.campaign_id, l.created_at, l.decided_at, l.payout::text AS amount
                FROM leads l
               WHERE l.affiliate_id = $1 AND l.created_at >= $2 AND l.created_at < $3 AND l.status = 'accepted'
               ORDER BY l.created_at, l.id`,
  ),
  school: statement(
    'statementAcceptedOfSchool',
    `SELECT l.id, l.offer_id, l.campaign_id, l.created_at, l.decided_at, sa.price::text AS amount
             FROM sales sa JOIN leads l ON l.id = sa.lead_id
            WHERE sa.school_id = $1 AND sa.created_at >= $2::timestamptz - interval '1 day' AND sa.status = 'accepted'
              AND l.created_at >= $2 AND l.created_at < $3 AND l.status = 'accepted'
            ORDER BY l.created_at, l.id`,
  ),
};

/** The returns booked in the window, oldest first, with their reversal of the party's amount. */
const RETURNS = {
  affiliate: statement(
    'statementReturnsOfAffiliate',
    `SELECT r.lead_id, r.offer_id, r.campaign_id, l.created_at, r.returned_at, r.reason, r.payout_reversal::text AS amount
                FROM lead_returns r JOIN leads l ON l.id = r.lead_id
               WHERE r.affiliate_id = $1 AND r.returned_at >= $2 AND r.returned_at < $3
               ORDER BY r.returned_at, r.lead_id`,
  ),
  school: statement(
    'statementReturnsOfSchool',
    `SELECT r.lead_id, r.offer_id, r.campaign_id, l.created_at, r.returned_at, r.reason, r.price_reversal::text AS amount
             FROM lead_returns r JOIN leads l ON l.id = r.lead_id
            WHERE r.school_id = $1 AND r.returned_at >= $2 AND r.returned_at < $3
            ORDER BY r.returned_at, r.lead_id`,
  ),
};

/** A line of either ACCEPTED statement, and of either RETURNS one. */
type AcceptedColumns = RowOf<'statementAcceptedOfAffiliate' | 'statementAcceptedOfSchool'>;
type ReturnColumns = RowOf<'statementReturnsOfAffiliate' | 'statementReturnsOfSchool'>;

export class AccountStatements {
  constructor(private readonly ds: DataSource) {}

  /** Streams the window's accepted leads, then its returns, to `sink` in batches of `batch` rows, from one snapshot. */
  async read(w: StatementWindow, sink: StatementSink, batch = STATEMENT_BATCH): Promise<void> {
    const kind = 'affiliateId' in w.party ? 'affiliate' : 'school';
    const partyId = 'affiliateId' in w.party ? w.party.affiliateId : w.party.schoolId;
    const params = [partyId, w.from, w.to];
    await inTransaction(poolOf(this.ds), async (tx) => {
      await tx.begin('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // Both cursors are declared before the first fetch: both read the transaction's one snapshot. Their rows are the
      // declared statements' (a cursor is declared over a text, so the statement is not prepared, only described).
      await tx.client.query(`DECLARE statement_accepted NO SCROLL CURSOR FOR ${ACCEPTED[kind].text}`, params);
      await tx.client.query(`DECLARE statement_returns NO SCROLL CURSOR FOR ${RETURNS[kind].text}`, params);
      for (;;) {
        const { rows } = await tx.client.query<AcceptedColumns>(`FETCH ${batch} FROM statement_accepted`);
        if (rows.length > 0) await sink.accepted(rows.map(acceptedLineOf));
        if (rows.length < batch) break;
      }
      for (;;) {
        const { rows } = await tx.client.query<ReturnColumns>(`FETCH ${batch} FROM statement_returns`);
        if (rows.length > 0) await sink.returns(rows.map(returnLineOf));
        if (rows.length < batch) break;
      }
    });
  }
}

function acceptedLineOf(r: AcceptedColumns): AcceptedLine {
  return {
    leadId: r.id,
    offerId: r.offer_id,
    campaignId: r.campaign_id,
    receivedAt: r.created_at,
    // An accepted lead was decided (the statement reads accepted leads only).
    acceptedAt: filled(r.decided_at, 'decided_at'),
    amount: centsOrNull(r.amount),
  };
}

function returnLineOf(r: ReturnColumns): ReturnLine {
  return {
    leadId: r.lead_id,
    offerId: r.offer_id,
    campaignId: r.campaign_id,
    receivedAt: r.created_at,
    returnedAt: r.returned_at,
    reason: r.reason,
    amount: centsOrNull(r.amount),
  };
}
