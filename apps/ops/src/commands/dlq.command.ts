import { Command } from 'commander';
import {
  ConsumerQueues,
  ReplayInterruptedError,
  ReplayReport,
  deadLetterDepths,
  deadLetterQueueNamed,
  deadLetterQueueNames,
  peekDeadLetters,
  purgeDeadLetters,
  replayDeadLetters,
  returnsWarning,
} from '@lr/messaging';
import { withBroker } from '../broker';
import { limitArgument } from '../cli-arguments';
import { CliError, EXIT } from '../cli-error';
import { CliContext } from '../context';
import { depthsJson, depthsTable, messagesTable, peekJson, peekLines, replayJson, replaySummary } from '../dlq/dlq-format';
import { replayProgress } from '../dlq/replay-progress';

const collect = (value: string, previous: string[]) => previous.concat(value);
const SHOW_LIMIT = 20;

/**
 * `dlq list|show|replay|purge` (ARCHITECTURE.md, Operator interface;
 * docs/runbooks/dead-letters.md). Queue names come from the code's topology for
 * AMQP_PREFIX; any other name is refused.
 */
export function registerDlqCommands(program: Command, ctx: CliContext): void {
  const dlq = program.command('dlq').description('dead-letter queues: list, inspect, replay, purge (never shows message bodies)');

  dlq
    .command('list')
    .description('every DLQ of the topology with its depth and consumer count')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { url, topology } = ctx.messaging();
      const rows = await withBroker(url, (conn) => deadLetterDepths(conn, topology));
      emit(
        ctx,
        opts.json,
        () => depthsJson(rows),
        () => depthsTable(rows),
      );
    });

  dlq
    .command('show')
    .argument('<queue>', 'a DLQ name, as dlq list prints it')
    .description(
      'the first messages of a DLQ, oldest first: id, type, failure reason, attempts, first failure, where from; the queue is left as it was',
    )
    .option('--limit <n>', 'how many messages', limitArgument, SHOW_LIMIT)
    .option('--json', 'print JSON')
    .action(async (queue: string, opts: { limit: number; json?: boolean }) => {
      const { url } = ctx.messaging();
      resolveDlq(ctx, queue);
      await withBroker(url, async (conn) => {
        const peek = await peekDeadLetters(conn, queue, opts.limit);
        warn(ctx, returnsWarning(conn, queue, peek.maxReturns));
        emit(
          ctx,
          opts.json,
          () => peekJson(peek),
          () => peekLines(peek),
        );
      });
    });

  dlq
    .command('replay')
    .argument('<queue>', 'a DLQ name, as dlq list prints it')
    .description(
      'send messages back to the queue they failed in (same id, type, correlation id and body; a fresh retry budget); each leaves the DLQ only once its copy is confirmed',
    )
    .option('--id <message-id>', 'replay only this message; repeatable', collect, [])
    .option('--limit <n>', 'replay at most this many messages, oldest first', limitArgument)
    .option('--dry-run', 'list what would be replayed and change nothing')
    .option('--json', 'print JSON')
    .action(async (queue: string, opts: { id: string[]; limit?: number; dryRun?: boolean; json?: boolean }) => {
      const { url, topology } = ctx.messaging();
      const queues = resolveDlq(ctx, queue);
      const limit = opts.limit;
      const report = await withBroker(url, async (conn) => {
        const progress = replayProgress(ctx.io, queue);
        try {
          const done = await replayDeadLetters(conn, topology, queues, {
            ids: opts.id,
            limit,
            dryRun: opts.dryRun,
            onProgress: (p) => progress.update(p),
          });
          progress.stop();
          warn(ctx, returnsWarning(conn, queue, done.maxReturns));
          return done;
        } catch (e) {
          progress.stop();
          if (e instanceof ReplayInterruptedError) {
            printReplay(ctx, queues, e.report, opts.json);
            throw new CliError(`replay stopped: ${e.message}`);
          }
          throw e;
        }
      });
      printReplay(ctx, queues, report, opts.json);
      if (report.notFound.length > 0) {
        throw new CliError(
          `not in ${queue}: ${report.notFound.join(', ')} (already replayed or purged, or held by another dlq command right now)`,
        );
      }
    });

  dlq
    .command('purge')
    .argument('<queue>', 'a DLQ name, as dlq list prints it')
    .description('delete every message of a DLQ for good (needs --yes)')
    .option('--yes', 'really delete them')
    .option('--json', 'print JSON')
    .action(async (queue: string, opts: { yes?: boolean; json?: boolean }) => {
      const { url } = ctx.messaging();
      resolveDlq(ctx, queue);
      if (!opts.yes) {
        throw new CliError(
          `refusing to purge ${queue} without --yes: its messages would be gone for good (look first: npm run ops -- dlq show ${queue})`,
          EXIT.usage,
        );
      }
      const purged = await withBroker(url, (conn) => purgeDeadLetters(conn, queue));
      emit(
        ctx,
        opts.json,
        () => ({ queue, purged }),
        () => [`purged ${purged} message${purged === 1 ? '' : 's'} from ${queue}`],
      );
    });
}

function printReplay(ctx: CliContext, queues: ConsumerQueues, report: ReplayReport, json?: boolean): void {
  for (const s of report.skipped) ctx.io.err(`skipped ${s.message.messageId ?? '(no message id)'}: ${s.reason}; it stays in ${queues.dlq}`);
  if (json) {
    ctx.io.out(JSON.stringify(replayJson(report)));
    return;
  }
  if (report.dryRun && report.replayed.length > 0) for (const line of messagesTable(report.replayed)) ctx.io.out(line);
  ctx.io.out(replaySummary(report));
}

/** The DLQ's consumer queues; any name that is not a DLQ of this topology is refused. */
function resolveDlq(ctx: CliContext, name: string): ConsumerQueues {
  const { topology } = ctx.messaging();
  const queues = deadLetterQueueNamed(topology, name);
  if (!queues)
    throw new CliError(`"${name}" is not a dead-letter queue of this topology; the DLQs are: ${deadLetterQueueNames(topology).join(', ')}`);
  return queues;
}

/** The result on stdout: one JSON document with --json, else lines of text. */
function emit(ctx: CliContext, json: boolean | undefined, asJson: () => unknown, asText: () => string[]): void {
  if (json) ctx.io.out(JSON.stringify(asJson()));
  else for (const line of asText()) ctx.io.out(line);
}

function warn(ctx: CliContext, warning: string | undefined): void {
  if (warning) ctx.io.err(`warning: ${warning}`);
}
