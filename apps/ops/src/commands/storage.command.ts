import { Command } from 'commander';
import { PartitionStore } from '@lr/persistence';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { storageJson, storageLines } from '../storage/storage-format';
import { storageReport } from '../storage/storage-report';

/** `storage report [--json]`: the size of every table and of each day partition, and bytes per search (docs/runbooks/retention.md). */
export function registerStorageCommands(program: Command, ctx: CliContext): void {
  const storage = program.command('storage').description('what the database holds');
  storage
    .command('report')
    .description('size per table and per partition, searches stored and bytes per search')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      // Counting every search stored may take minutes on a large database.
      const report = await withDatabase(ctx.databaseUrl(), (ds) => storageReport(new PartitionStore(ds)), {
        statementTimeoutMs: 10 * 60_000,
      });
      ctx.io.out(opts.json ? JSON.stringify(storageJson(report), null, 2) : storageLines(report).join('\n'));
    });
}
