import { Command } from 'commander';
import type { CatalogIssue } from '@lr/domain';
import { applyCatalog, validateCatalogFile } from '../catalog/apply-catalog';
import { simulateCatalog, SimulationWindow } from '../catalog-simulate/simulate-catalog';
import { formatSimulation } from '../catalog-simulate/simulate.format';
import { simulateProgress } from '../catalog-simulate/simulate-progress';
import { checkWindow, instantArgument, limitArgument } from '../cli-arguments';
import { changedAnything, formatContactAtSearch, formatSummary } from '../catalog/format-summary';
import { readCatalogFile } from '../catalog/read-catalog-file';
import { CliError, EXIT } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { announceKeysChanged } from './announce-keys';

/** The newest searches a simulation replays when no window is given. */
const DEFAULT_LAST = 10_000;
/** A simulation reads a page of searches per statement; long windows take minutes, not one statement. */
const SIMULATION_STATEMENTS = { statementTimeoutMs: 10 * 60_000 };

/** `catalog apply <file.json>` (CATALOG.md), `catalog simulate <file.json>`. */
export function registerCatalogCommands(program: Command, ctx: CliContext): void {
  const catalog = program.command('catalog').description('affiliates, schools, partners, offers and campaigns');
  catalog
    .command('apply')
    .argument('<file>', 'catalog JSON file (format: CATALOG.md)')
    .description('validate the whole file, then upsert everything in it in one transaction')
    .action(async (file: string) => {
      const input = await readCatalogFile(file);
      const outcome = await withDatabase(ctx.databaseUrl(), (ds) => applyCatalog(ds, input));
      if (!outcome.ok) throw new CliError(issuesMessage(file, outcome.issues, 'nothing applied'));
      ctx.io.out(`Catalog ${file} applied${changedAnything(outcome.summary) ? '' : ' (no changes)'}:`);
      for (const line of formatSummary(outcome.summary)) ctx.io.out(line);
      for (const line of formatContactAtSearch(outcome.contactAtSearch)) ctx.io.out(line);
      // A paused affiliate's keys must stop working now: gateways drop every cached key.
      if (changedAnything(outcome.summary)) await announceKeysChanged(ctx, '*');
    });
  catalog
    .command('validate')
    .argument('<file>', 'catalog JSON file (format: CATALOG.md)')
    .description('check the whole file as apply does (against the database), and write nothing')
    .action(async (file: string) => {
      const input = await readCatalogFile(file);
      const outcome = await withDatabase(ctx.databaseUrl(), (ds) => validateCatalogFile(ds, input));
      if (!outcome.ok) throw new CliError(issuesMessage(file, outcome.issues, 'nothing applied'));
      ctx.io.out(`Catalog ${file} is valid (nothing applied)`);
      for (const line of formatContactAtSearch(outcome.contactAtSearch)) ctx.io.out(line);
    });
  catalog
    .command('simulate')
    .argument('<file>', 'proposed catalog JSON file (format: CATALOG.md)')
    .option('--last <n>', `replay the newest n live searches of the campaigns the file touches (default ${DEFAULT_LAST})`, limitArgument)
    .option('--from <iso>', 'replay the searches created from this time (included), with --to', instantArgument)
    .option('--to <iso>', 'until this time (excluded)', instantArgument)
    .option('--json', 'print JSON (stable keys; up to 1,000 search ids per offer that lose or gain it)')
    .description(
      'validate a proposed catalog like apply, replay past searches against it and against the catalog now, and print what would change; writes nothing',
    )
    .action(async (file: string, opts: { last?: number; from?: Date; to?: Date; json?: boolean }) => {
      if (opts.last !== undefined && (opts.from || opts.to))
        throw new CliError('give either --last or --from and --to, not both', EXIT.usage);
      if (!opts.from !== !opts.to) throw new CliError('--from and --to go together', EXIT.usage);
      checkWindow(opts.from, opts.to);
      const window: SimulationWindow = opts.from && opts.to ? { from: opts.from, to: opts.to } : { last: opts.last ?? DEFAULT_LAST };
      const input = await readCatalogFile(file);
      const progress = simulateProgress(ctx.io);
      const outcome = await withDatabase(
        ctx.databaseUrl(),
        (ds) => simulateCatalog(ds, input, window, (done, total) => progress.update(done, total)),
        SIMULATION_STATEMENTS,
      ).finally(() => progress.stop());
      if (!outcome.ok) throw new CliError(issuesMessage(file, outcome.issues, 'nothing simulated'));
      ctx.io.out(opts.json ? JSON.stringify(outcome.simulation, null, 2) : formatSimulation(file, outcome.simulation).join('\n'));
      ctx.io.err(`simulated ${outcome.simulation.searches} searches in ${outcome.simulation.seconds.toFixed(1)} s`);
    });
}

/** `catalog.json: 2 errors; nothing applied.` and one line per issue, naming its JSON path. */
function issuesMessage(file: string, issues: readonly CatalogIssue[], what: string): string {
  const lines = issues.map((i) => `  ${i.path}: ${i.message}`);
  return `${file}: ${issues.length} error${issues.length === 1 ? '' : 's'}; ${what}.\n${lines.join('\n')}`;
}
