import { performance } from 'node:perf_hooks';
import { Command, Option } from 'commander';
import { CatalogRepository, StatementParty } from '@lr/persistence';
import { checkWindow, instantArgument, uuidArgument } from '../cli-arguments';
import { CliError, EXIT } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { writeStatement } from '../statement/account-statement';
import { STATEMENT_FORMATS, StatementFormat } from '../statement/statement-writers';

/** A long statement is read through cursors; a batch may take a while on a busy database. */
const LONG_STATEMENTS = { statementTimeoutMs: 10 * 60_000 };

/**
 * `statement (--affiliate | --school) --from --to [--format csv|json]`
 * (docs/returns.md, "Statements"): every accepted lead of the window with its
 * payout (an affiliate's) or price (a school's), every return booked in it
 * with its reason, and the totals gross, returns and net, in exact decimal.
 */
export function registerStatementCommands(program: Command, ctx: CliContext): void {
  program
    .command('statement')
    .description(
      "an affiliate's payouts or a school's prices over [from, to): every accepted lead, every return with its reason, totals (gross, returns, net)",
    )
    .addOption(new Option('--affiliate <uuid>', "the affiliate's statement (payouts)").argParser(uuidArgument).conflicts('school'))
    .addOption(new Option('--school <uuid>', "the school's statement (prices)").argParser(uuidArgument).conflicts('affiliate'))
    .requiredOption('--from <iso>', 'start, included: 2026-11-01 (midnight UTC) or 2026-11-01T00:00:00-05:00', instantArgument)
    .requiredOption('--to <iso>', 'end, excluded', instantArgument)
    .addOption(new Option('--format <format>', 'csv or json').choices(STATEMENT_FORMATS).default('csv'))
    .action(async (opts: { affiliate?: string; school?: string; from: Date; to: Date; format: StatementFormat }) => {
      const party: StatementParty | null = opts.affiliate
        ? { affiliateId: opts.affiliate }
        : opts.school
          ? { schoolId: opts.school }
          : null;
      if (!party) throw new CliError('name the party: --affiliate <uuid> or --school <uuid>', EXIT.usage);
      checkWindow(opts.from, opts.to);
      const started = performance.now();
      const totals = await withDatabase(
        ctx.databaseUrl(),
        async (ds) => {
          const catalog = new CatalogRepository(ds);
          if ('affiliateId' in party && !(await catalog.affiliate(party.affiliateId)))
            throw new CliError(`unknown affiliate ${party.affiliateId}`);
          if ('schoolId' in party && !(await catalog.school(party.schoolId))) throw new CliError(`unknown school ${party.schoolId}`);
          return writeStatement(ds, { party, from: opts.from, to: opts.to }, opts.format, (lines) => ctx.io.out(lines));
        },
        LONG_STATEMENTS,
      );
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      ctx.io.err(`statement: ${totals.accepted} accepted, ${totals.returns} returns in ${seconds} s`);
    });
}
