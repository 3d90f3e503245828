import { Command } from 'commander';
import { PartitionStore, SealedContacts } from '@lr/persistence';
import { CliError } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase, withSealer } from '../database';
import { retentionJson, retentionLines } from '../retention/retention-format';
import { retentionProgress } from '../retention/retention-progress';
import { RetentionInterruptedError, RetentionReport, runRetention } from '../retention/retention-run';

/** Counting a day's rows or moving its kept searches may take minutes on a large day (the CronJob allows an hour). */
const LONG_STATEMENTS = { statementTimeoutMs: 10 * 60_000 };

/**
 * `retention run [--dry-run] [--json]` (docs/runbooks/retention.md): drops the
 * day partitions past RETENTION_SEARCH_DAYS / RETENTION_MESSAGE_DAYS, after
 * moving every search a lead names to the kept partition. Scheduled daily
 * (k8s CronJob lead-router-retention, the Compose service `retention`); one
 * run at a time, a second run right after finds nothing to do.
 */
export function registerRetentionCommands(program: Command, ctx: CliContext): void {
  const retention = program.command('retention').description('how long searches and handled-message records are kept');
  retention
    .command('run')
    .description('create the partitions ahead, keep the searches a lead names, drop the day partitions past their window')
    .option('--dry-run', 'print what would be dropped and kept, and change nothing')
    .option('--json', 'print JSON')
    .action(async (opts: { dryRun?: boolean; json?: boolean }) => {
      const settings = ctx.retention();
      const dryRun = opts.dryRun === true;
      const print = (report: RetentionReport) =>
        ctx.io.out(opts.json ? JSON.stringify(retentionJson(report), null, 2) : retentionLines(report).join('\n'));
      await withDatabase(
        ctx.databaseUrl(),
        async (ds) => {
          const store = new PartitionStore(ds);
          const progress = retentionProgress(ctx.io);
          const run = () =>
            withSealer(ctx, (sealer) =>
              runRetention(store, {
                now: new Date(),
                settings,
                dryRun,
                dataKeys: { sealed: new SealedContacts(ds), keys: sealer },
                onStep: (s) => progress.step(s),
              }),
            );
          let report: RetentionReport | 'busy';
          try {
            // A dry run changes nothing, so it needs no lock (and runs beside a scheduled run).
            report = dryRun ? await run() : await store.exclusively(run);
          } catch (e) {
            progress.stop();
            if (e instanceof RetentionInterruptedError) {
              print(e.report);
              throw new CliError(`retention ${e.message}; what was dropped is listed above, run it again to finish`);
            }
            throw e;
          }
          progress.stop();
          if (report === 'busy')
            throw new CliError(
              'another retention run holds the retention lock; nothing changed (it finishes on its own, or see docs/runbooks/retention.md)',
            );
          print(report);
        },
        LONG_STATEMENTS,
      );
    });
}
