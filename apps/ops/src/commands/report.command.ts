import { Command, Option } from 'commander';
import { CatalogRepository } from '@lr/persistence';
import { checkWindow, instantArgument, uuidArgument } from '../cli-arguments';
import { CliError } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { activityReport, REPORT_DIMENSIONS, ReportDimension } from '../report/activity-report';
import { formatActivityReport } from '../report/activity-report.format';

/** `report --from --to --by campaign|offer|affiliate`: searches, results, submits by code, accepted and payouts. */
export function registerReportCommands(program: Command, ctx: CliContext): void {
  program
    .command('report')
    .description('activity over [from, to) per campaign, offer or affiliate: searches, results shown, submits by code, accepted, payouts')
    .requiredOption('--from <iso>', 'start, included: 2026-11-01 (midnight UTC) or 2026-11-01T08:00:00-05:00', instantArgument)
    .requiredOption('--to <iso>', 'end, excluded', instantArgument)
    .addOption(new Option('--by <dimension>', 'one row per').choices(REPORT_DIMENSIONS).makeOptionMandatory())
    .option('--affiliate <uuid>', "only this affiliate's traffic", uuidArgument)
    .option('--include-test', 'count test searches and submits too (left out by default)')
    .option('--json', 'print JSON (every submit code, stable keys)')
    .action(async (opts: { from: Date; to: Date; by: ReportDimension; affiliate?: string; includeTest?: boolean; json?: boolean }) => {
      checkWindow(opts.from, opts.to);
      const affiliateId = opts.affiliate ?? null;
      const report = await withDatabase(ctx.databaseUrl(), async (ds) => {
        if (affiliateId && !(await new CatalogRepository(ds).affiliate(affiliateId)))
          throw new CliError(`unknown affiliate ${affiliateId}`);
        return activityReport(ds, { from: opts.from, to: opts.to, by: opts.by, includeTest: opts.includeTest === true, affiliateId });
      });
      ctx.io.out(opts.json ? JSON.stringify(report, null, 2) : formatActivityReport(report).join('\n'));
    });
}
