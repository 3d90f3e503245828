import { Command } from 'commander';
import { sealedContactsIn, type SealedContact } from '@lr/domain';
import { deadLetterBodies } from '@lr/messaging';
import { OptOuts, PartitionStore, PersonErasure, SealedContacts } from '@lr/persistence';
import { withShortLivedRedis } from '@lr/redis';
import { SearchStateStore } from '@lr/search-state';
import { referenceArgument } from '../cli-arguments';
import { CliError, EXIT } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase, withSealer } from '../database';
import { optOutKeysOfArguments, PersonArguments } from '../opt-outs/opt-out-keys';
import { withBroker } from '../broker';
import { deletePerson, ParkedMessages, SearchStates } from '../person/delete-person';
import { deletionJson, deletionLines } from '../person/delete-person.format';
import { deleteProgress } from '../person/delete-progress';

/** Scanning a month of search partitions and the leads the consent ledger does not hold may take minutes on a large database. */
const LONG_STATEMENTS = { statementTimeoutMs: 10 * 60_000 };
const REDIS_TIMEOUT_MS = 5000;

/** Every value of an option given more than once (commander would keep the last): checked in the action, whose errors never repeat a value. */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The person named by the options: a deletion request is recorded as one
 * opt-out, which holds one email and one phone, so an option given twice is
 * refused rather than one of its values dropped.
 */
function personOf(opts: { [K in keyof PersonArguments]?: string[] }): PersonArguments {
  const one: PersonArguments = {};
  for (const [option, key] of [
    ['--email', 'email'],
    ['--phone', 'phone'],
    ['--hashed-email', 'hashedEmail'],
    ['--hashed-phone', 'hashedPhone'],
  ] as const) {
    const values = opts[key] ?? [];
    if (values.length > 1)
      throw new CliError(`${option} given ${values.length} times: one per request (run the command once per email or phone)`, EXIT.usage);
    if (values.length === 1) one[key] = values[0];
  }
  return one;
}

/**
 * `person delete` (docs/deletion.md, docs/runbooks/deletion-request.md): a
 * consumer's deletion request. Erases the person's contact data from their
 * searches, leads, stored delivery details and Redis, destroys the data keys
 * of their sealed records (crypto-shredding), keeps what holds none and the
 * consent record, and suppresses them with a hashed entry. Prints
 * counts and ids only, never contact data.
 */
export function registerPersonCommands(program: Command, ctx: CliContext): void {
  const person = program.command('person').description("a consumer's own requests about their data");
  person
    .command('delete')
    .description("erase a person's contact data everywhere it is stored, keep a hashed suppression entry; safe to repeat")
    .option('--email <email>', "the person's email (normalized and hashed as for duplicates)", collect)
    .option('--phone <phone>', "the person's phone (10 US digits, any punctuation, optional +1)", collect)
    .option('--hashed-email <sha256hex>', 'the SHA-256 of the normalized email', collect)
    .option('--hashed-phone <sha256hex>', 'the SHA-256 of the 10 digits of the phone', collect)
    .option('--reference <text>', 'a reference of the request (a ticket number; never contact data), kept with it', referenceArgument)
    .option('--dry-run', 'count what would be erased, and change nothing')
    .option('--json', 'print JSON')
    .action(async (opts: { [K in keyof PersonArguments]?: string[] } & { reference?: string; dryRun?: boolean; json?: boolean }) => {
      const named = personOf(opts);
      const person = optOutKeysOfArguments(ctx.personKeySecret(), named);
      if ('error' in person) throw new CliError(person.error, EXIT.usage);
      const typed = { emails: named.email === undefined ? [] : [named.email], phones: named.phone === undefined ? [] : [named.phone] };
      const { url, keyPrefix } = ctx.redis();
      const states: SearchStates = {
        forget: async (ids, dryRun) =>
          ids.length === 0
            ? 0
            : withShortLivedRedis(url, { keyPrefix, timeoutMs: REDIS_TIMEOUT_MS }, (client) => {
                const store = new SearchStateStore(client);
                return dryRun ? store.held(ids) : store.forget(ids);
              }),
      };
      const broker = ctx.messaging();
      const parked: ParkedMessages = {
        sealed: () =>
          withBroker(broker.url, async (conn) => {
            const documents: SealedContact[] = [];
            for (const c of broker.topology.consumers)
              for (const body of await deadLetterBodies(conn, c.dlq)) documents.push(...sealedContactsIn(parsedBody(body)));
            return documents;
          }),
      };
      const progress = deleteProgress(ctx.io);
      const report = await withDatabase(
        ctx.databaseUrl(),
        (ds) =>
          withSealer(ctx, (sealer) =>
            deletePerson(
              {
                erasure: new PersonErasure(ds),
                sealed: new SealedContacts(ds),
                keys: sealer,
                partitions: new PartitionStore(ds),
                optOuts: new OptOuts(ds),
                states,
                parked,
                onProgress: (d, t) => progress.update(d, t),
              },
              {
                keys: person.keys,
                typed,
                reference: opts.reference ?? null,
                dryRun: opts.dryRun === true,
                now: new Date(),
                relay: ctx.relay(),
                secret: ctx.personKeySecret(),
              },
            ),
          ),
        LONG_STATEMENTS,
      ).finally(() => progress.stop());
      ctx.io.out(opts.json ? JSON.stringify(deletionJson(report), null, 2) : deletionLines(report).join('\n'));
    });
}

/** A message body as JSON; one that is not JSON holds no sealed document. */
function parsedBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}
