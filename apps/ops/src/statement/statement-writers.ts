import { type Cents, decimalText, type StatementTotals } from '@lr/domain';
import type { AcceptedLine, ReturnLine, StatementWindow } from '@lr/persistence';

export const STATEMENT_FORMATS = ['csv', 'json'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

/**
 * Writes a statement as it is read, a batch of lines at a time (`out` takes
 * whole lines, without their last newline). Money is exact decimal text
 * ("22.50", "-22.50"), never a JSON number: a reader parsing floats would
 * lose what the statement promises.
 */
export interface StatementWriter {
  start(): void;
  accepted(lines: readonly AcceptedLine[]): void;
  returns(lines: readonly ReturnLine[]): void;
  end(totals: StatementTotals): void;
}

const money = (c: Cents | null): string | null => (c === null ? null : decimalText(c));
const iso = (d: Date) => d.toISOString();

/** The party's column of ids: an affiliate sees its campaigns; a school's statement names no affiliate's campaign. */
const showsCampaign = (w: StatementWindow) => 'affiliateId' in w.party;

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
function csvField(v: string | number | null): string {
  const s = v === null ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
const csvLine = (fields: Array<string | number | null>) => fields.map(csvField).join(',');

/**
 * CSV: one line per accepted lead (`accepted`, at its acceptance) and per
 * return (`return`, at its booking, with its reason), then the totals
 * (`gross`, `returns` with their counts, `net`). A school's statement has no
 * campaign column.
 */
export function csvStatement(w: StatementWindow, out: (lines: string) => void): StatementWriter {
  const campaign = showsCampaign(w);
  const row = (
    entry: string,
    id: string | null,
    offer: string | null,
    camp: string | null,
    received: string | null,
    at: string | null,
    reason: string | null,
    amount: string | null,
    count: number | null,
  ) => csvLine([entry, id, offer, ...(campaign ? [camp] : []), received, at, reason, amount, count]);
  return {
    start: () =>
      out(
        csvLine([
          'entry',
          'svc_lead_id',
          'offer_id',
          ...(campaign ? ['campaign_id'] : []),
          'received_at',
          'at',
          'reason',
          'amount',
          'count',
        ]),
      ),
    accepted: (lines) =>
      out(
        lines
          .map((l) => row('accepted', l.leadId, l.offerId, l.campaignId, iso(l.receivedAt), iso(l.acceptedAt), null, money(l.amount), null))
          .join('\n'),
      ),
    returns: (lines) =>
      out(
        lines
          .map((l) =>
            row('return', l.leadId, l.offerId, l.campaignId, iso(l.receivedAt), iso(l.returnedAt), l.reason, money(l.amount), null),
          )
          .join('\n'),
      ),
    end: (t) =>
      out(
        [
          row('gross', null, null, null, null, null, null, money(t.gross), t.accepted),
          row('returns', null, null, null, null, null, null, money(t.returned), t.returns),
          row('net', null, null, null, null, null, null, money(t.net), null),
        ].join('\n'),
      ),
  };
}

/**
 * JSON: one object, written as it is read: the party, which amount it is
 * (`payout` or `price`), the window, `accepted` and `returns` (one element a
 * line, a batch a call), then `totals`.
 */
export function jsonStatement(w: StatementWindow, out: (lines: string) => void): StatementWriter {
  const campaign = showsCampaign(w);
  const party = 'affiliateId' in w.party ? { affiliate_id: w.party.affiliateId } : { school_id: w.party.schoolId };
  let section: 'accepted' | 'returns' = 'accepted';
  let empty = true;
  const enter = (next: 'returns') => {
    if (section === next) return;
    out('],"returns":[');
    section = next;
    empty = true;
  };
  /** One line as an element: its ids, its times (`at`: the acceptance, or the return and its reason), its amount. */
  const element = (l: AcceptedLine | ReturnLine, at: Record<string, string>) => ({
    svc_lead_id: l.leadId,
    offer_id: l.offerId,
    ...(campaign ? { campaign_id: l.campaignId } : {}),
    received_at: iso(l.receivedAt),
    ...at,
    amount: money(l.amount),
  });
  // Each batch on lines of its own; a batch after the first begins with the comma that separates it.
  const elements = (items: object[]) => {
    if (items.length === 0) return;
    out(`${empty ? '' : ','}${items.map((x) => JSON.stringify(x)).join(',\n')}`);
    empty = false;
  };
  return {
    start: () =>
      out(
        `{"party":${JSON.stringify(party)},"amount":"${campaign ? 'payout' : 'price'}","from":"${iso(w.from)}","to":"${iso(w.to)}","accepted":[`,
      ),
    accepted: (lines) => elements(lines.map((l) => element(l, { accepted_at: iso(l.acceptedAt) }))),
    returns: (lines) => {
      enter('returns');
      elements(lines.map((l) => element(l, { returned_at: iso(l.returnedAt), reason: l.reason })));
    },
    end: (t) => {
      enter('returns');
      out(
        `],"totals":${JSON.stringify({ accepted: t.accepted, gross: money(t.gross), returns: t.returns, returned: money(t.returned), net: money(t.net) })}}`,
      );
    },
  };
}

export const STATEMENT_WRITERS: Record<StatementFormat, (w: StatementWindow, out: (lines: string) => void) => StatementWriter> = {
  csv: csvStatement,
  json: jsonStatement,
};
