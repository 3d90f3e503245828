import { DataSource } from 'typeorm';
import { NO_TOTALS, type StatementTotals, withAccepted, withReturn } from '@lr/domain';
import { AccountStatements, StatementWindow } from '@lr/persistence';
import { STATEMENT_WRITERS, StatementFormat } from './statement-writers';

/**
 * `ops statement` (docs/returns.md, "Statements"): every accepted lead of the
 * window with its amount, every return booked in it with its reason, and
 * the totals, written as they are read (AccountStatements streams them from
 * one snapshot). The totals are added up here in exact cents (libs/domain
 * statement totals): gross, returns, net.
 */
export async function writeStatement(
  ds: DataSource,
  w: StatementWindow,
  format: StatementFormat,
  out: (lines: string) => void,
): Promise<StatementTotals> {
  const writer = STATEMENT_WRITERS[format](w, out);
  let totals = NO_TOTALS;
  writer.start();
  await new AccountStatements(ds).read(w, {
    accepted: (lines) => {
      for (const l of lines) totals = withAccepted(totals, l.amount);
      writer.accepted(lines);
    },
    returns: (lines) => {
      for (const l of lines) totals = withReturn(totals, l.amount);
      writer.returns(lines);
    },
  });
  writer.end(totals);
  return totals;
}
