import { Command } from 'commander';
import { searchStateKey } from '@lr/contracts';
import { OptOuts, PartitionStore, PersonErasure } from '@lr/persistence';
import { SearchStateStore, withShortLivedRedis } from '@lr/redis';
import { referenceArgument } from '../cli-arguments';
import { CliError, EXIT } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { deletePerson, SearchStates } from '../person/delete-person';
import { deletionJson, deletionLines } from '../person/delete-person.format';
import { deleteProgress } from '../person/delete-progress';
import { PersonOptions, personIdentifiers } from '../person/person-identifiers';

/** Scanning a month of search partitions and the leads the consent ledger does not hold may take minutes on a large database. */
const LONG_STATEMENTS = { statementTimeoutMs: 10 * 60_000 };
const REDIS_TIMEOUT_MS = 5000;

const repeatable = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `person delete` (docs/deletion.md, docs/runbooks/deletion-request.md): a
 * consumer's deletion request. Erases the person's contact data from their
 * searches, leads, stored delivery details and Redis, keeps what holds none
 * and the consent record, and suppresses them with a hashed entry. Prints
 * counts and ids only, never contact data.
 */
export function registerPersonCommands(program: Command, ctx: CliContext): void {
  const person = program.command('person').description("a consumer's own requests about their data");
  person
    .command('delete')
    .description("erase a person's contact data everywhere it is stored, keep a hashed suppression entry; safe to repeat")
    .option('--email <email>', "the person's email (normalized and hashed as for duplicates)", repeatable)
    .option('--phone <phone>', "the person's phone (10 US digits, any punctuation, optional +1)", repeatable)
    .option('--hashed-email <sha256hex>', 'the SHA-256 of the normalized email', repeatable)
    .option('--hashed-phone <sha256hex>', 'the SHA-256 of the 10 digits of the phone', repeatable)
    .option('--reference <text>', 'a reference of the request (a ticket number; never contact data), kept with it', referenceArgument)
    .option('--dry-run', 'count what would be erased, and change nothing')
    .option('--json', 'print JSON')
    .action(async (opts: PersonOptions & { reference?: string; dryRun?: boolean; json?: boolean }) => {
      const person = personIdentifiers(opts);
      if ('error' in person) throw new CliError(person.error, EXIT.usage);
      const { url, keyPrefix } = ctx.redis();
      const states: SearchStates = {
        forget: (ids, dryRun) =>
          withShortLivedRedis(url, { keyPrefix, timeoutMs: REDIS_TIMEOUT_MS }, (client) => {
            const store = new SearchStateStore(client);
            const keys = ids.map(searchStateKey);
            return dryRun ? store.held(keys) : store.forget(keys);
          }),
      };
      const progress = deleteProgress(ctx.io);
      const report = await withDatabase(
        ctx.databaseUrl(),
        (ds) =>
          deletePerson(
            { erasure: new PersonErasure(ds), partitions: new PartitionStore(ds), optOuts: new OptOuts(ds), states, onProgress: (d, t) => progress.update(d, t) },
            { ...person, reference: opts.reference ?? null, dryRun: opts.dryRun === true, now: new Date() },
          ),
        LONG_STATEMENTS,
      ).finally(() => progress.stop());
      ctx.io.out(opts.json ? JSON.stringify(deletionJson(report), null, 2) : deletionLines(report).join('\n'));
    });
}
