import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { LeadReturns } from '@lr/persistence';
import { CliError } from '../cli-error';
import { CliContext } from '../context';
import { countProgress } from '../count-progress';
import { withDatabase } from '../database';
import { importedLineText, importReturns } from '../returns/import-returns';

/**
 * `returns import <file.csv> [--json]` (docs/returns.md): returns a school
 * sent by other means (a file, an email), booked exactly as the buyer API
 * books them, with a report line per line of the file.
 */
export function registerReturnsCommands(program: Command, ctx: CliContext): void {
  const returns = program.command('returns').description("schools' returns of leads they bought");
  returns
    .command('import')
    .argument('<file>', 'CSV with the columns school_id, svc_lead_id, reason[, note], named on its first line')
    .option('--json', 'print the report as JSON')
    .description('book each line as a return by its school (as the buyer API does); a report line per line, progress on stderr')
    .action(async (file: string, opts: { json?: boolean }) => {
      const text = await readFile(file, 'utf8').catch((e: Error) => {
        throw new CliError(`cannot read ${file}: ${e.message}`);
      });
      const progress = countProgress(ctx.io, {
        bar: 'returns import [{bar}] {value}/{total} lines',
        line: (done, total) => `returns import: ${done}/${total} lines`,
      });
      const report = await withDatabase(ctx.databaseUrl(), (ds) =>
        importReturns(new LeadReturns(ds), text, (l, done, total) => {
          if (!opts.json) ctx.io.out(importedLineText(l));
          progress.update(done, total);
        }),
      ).finally(() => progress.stop());
      const t = report.totals;
      const summary = `${report.lines.length} lines: ${t.returned} returned, ${t.already_returned} already returned, ${t.refused} refused, ${t.invalid} invalid`;
      if (opts.json) ctx.io.out(JSON.stringify(report, null, 2));
      else ctx.io.out(summary);
      if (t.refused + t.invalid > 0) throw new CliError(`${summary}: see the lines refused or invalid above`);
    });
}
