import { Command } from 'commander';
import { applyCatalog } from '../catalog/apply-catalog';
import { changedAnything, formatSummary } from '../catalog/format-summary';
import { readCatalogFile } from '../catalog/read-catalog-file';
import { CliError } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { announceKeysChanged } from './announce-keys';

/** `catalog apply <file.json>` (CATALOG.md). */
export function registerCatalogCommands(program: Command, ctx: CliContext): void {
  const catalog = program.command('catalog').description('affiliates, schools, partners, offers and campaigns');
  catalog
    .command('apply')
    .argument('<file>', 'catalog JSON file (format: CATALOG.md)')
    .description('validate the whole file, then upsert everything in it in one transaction')
    .action(async (file: string) => {
      const input = await readCatalogFile(file);
      const outcome = await withDatabase(ctx.databaseUrl(), (ds) => applyCatalog(ds, input));
      if (!outcome.ok) {
        const lines = outcome.issues.map((i) => `  ${i.path}: ${i.message}`);
        const n = outcome.issues.length;
        throw new CliError(`${file}: ${n} error${n === 1 ? '' : 's'}; nothing applied.\n${lines.join('\n')}`);
      }
      ctx.io.out(`Catalog ${file} applied${changedAnything(outcome.summary) ? '' : ' (no changes)'}:`);
      for (const line of formatSummary(outcome.summary)) ctx.io.out(line);
      // A paused affiliate's keys must stop working now: gateways drop every cached key.
      if (changedAnything(outcome.summary)) await announceKeysChanged(ctx, '*');
    });
}
