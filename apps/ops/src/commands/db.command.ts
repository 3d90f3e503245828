import { Command } from 'commander';
import { migrateDatabase } from '@lr/persistence';
import { CliError } from '../cli-error';
import { CliContext } from '../context';
import { redactUrl } from '../database';

/** `db migrate`: creates the database and its key store if missing and applies pending migrations, printing their names. */
export function registerDbCommands(program: Command, ctx: CliContext): void {
  const db = program.command('db').description('database schema');
  db.command('migrate')
    .description('create the database and its key store if missing and apply pending migrations')
    .action(async () => {
      const url = ctx.databaseUrl();
      let applied: string[];
      try {
        applied = await migrateDatabase(url, ctx.personKeySecret(), ctx.keyStoreUrl());
      } catch (e) {
        throw new CliError(`migration failed on ${redactUrl(url)}: ${(e as Error).message}`);
      }
      if (applied.length === 0) ctx.io.out('No pending migrations.');
      for (const name of applied) ctx.io.out(`applied ${name}`);
    });
}
