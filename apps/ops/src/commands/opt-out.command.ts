import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { Command } from 'commander';
import { isOverdue, optOutRecord, reversalReasonProblem } from '@lr/domain';
import { ListedOptOut, OpenNotice, OptOuts } from '@lr/persistence';
import { checkWindow, instantArgument, limitArgument, uuidArgument } from '../cli-arguments';
import { CliError, EXIT } from '../cli-error';
import { CliContext } from '../context';
import { countProgress } from '../count-progress';
import { withDatabase } from '../database';
import { ImportFileError, importOptOuts } from '../opt-outs/opt-out-import';
import { optOutKeysOfArguments, PersonArguments } from '../opt-outs/opt-out-keys';
import { ReversalReport, ReversalTarget, reverseOptOuts } from '../opt-outs/reverse-opt-outs';
import { formatTable } from '../text-table';

interface PersonOptions extends PersonArguments {
  json?: boolean;
}

/** The options that name a person, on every command that takes one. */
function personOptions(cmd: Command): Command {
  return cmd
    .option('--email <email>', "the person's email (normalized as for duplicates; never stored raw)")
    .option('--phone <phone>', "the person's phone (its ten US digits)")
    .option('--hashed-email <sha256>', 'the SHA-256 of the normalized email')
    .option('--hashed-phone <sha256>', 'the SHA-256 of the normalized phone');
}

function keysOf(ctx: CliContext, opts: PersonArguments) {
  const keys = optOutKeysOfArguments(ctx.personKeySecret(), opts);
  if ('error' in keys) throw new CliError(keys.error, EXIT.usage);
  return keys.keys;
}

/** Who runs a command that is audited: `--by`, else the login name. */
function operatorName(by: string | undefined): string {
  const name = by ?? safeLogin();
  if (name.trim() === '' || name.length > 100) throw new CliError('--by must be 1 to 100 characters', EXIT.usage);
  return `operator:${name}`;
}

function safeLogin(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * `optout add | import | status | list | reverse | lift | acknowledge`
 * (docs/opt-outs.md, docs/runbooks/opt-outs.md): opt-outs that reach the
 * operator, the revocation notices still waiting for their buyer, an API
 * key's opt-outs and reversing them (audited), lifting a suppression
 * (audited) and recording a notice sent by other means.
 */
export function registerOptOutCommands(program: Command, ctx: CliContext): void {
  const optout = program
    .command('optout')
    .description('opt-outs: suppress a person for every affiliate, and tell the buyers that have their leads');

  personOptions(optout.command('add').description('record an opt-out that reached the operator'))
    .option('--received-at <iso>', 'when the consumer asked (default now): the buyers have ten business days from then', instantArgument)
    .option('--reference <text>', "the request's reference (a ticket); never contact data")
    .option('--json', 'print JSON')
    .action(async (opts: PersonOptions & { receivedAt?: Date; reference?: string }) => {
      const keys = keysOf(ctx, opts);
      const now = new Date();
      if (opts.receivedAt && opts.receivedAt.getTime() > now.getTime()) throw new CliError('--received-at is in the future', EXIT.usage);
      if (opts.reference !== undefined && opts.reference.length > 200)
        throw new CliError('--reference is longer than 200 characters', EXIT.usage);
      const record = optOutRecord({
        id: randomUUID(),
        receivedAt: opts.receivedAt ?? now,
        source: 'operator',
        affiliateId: null,
        apiKeyId: null,
        reference: opts.reference ?? null,
        keys,
        actor: 'operator',
        relay: ctx.relay(),
      });
      const r = await withDatabase(ctx.databaseUrl(), (ds) => new OptOuts(ds).record(record));
      const out = {
        opt_out_id: record.id,
        keys: keys.map((k) => k.type),
        newly_suppressed: r.suppressed,
        notices: r.notices,
        due_at: record.dueAt.toISOString(),
      };
      ctx.io.out(
        opts.json
          ? JSON.stringify(out, null, 2)
          : `opt-out ${record.id} recorded: ${keys.map((k) => k.type).join(' and ')} suppressed (${r.suppressed} newly); ${r.notices} revocation notice${r.notices === 1 ? '' : 's'} due by ${out.due_at}`,
      );
    });

  optout
    .command('import <csv>')
    .description(
      `record one opt-out per line of a CSV file with a header (columns: email, phone, hashed_email, hashed_phone, received_at, reference)`,
    )
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { json?: boolean }) => {
      const progress = countProgress(ctx.io, { bar: 'opt-outs {bar} {value}/{total} lines', line: (d, t) => `opt-outs: ${d}/${t} lines` });
      const report = await withDatabase(ctx.databaseUrl(), (ds) =>
        importOptOuts(file, new OptOuts(ds), new Date(), (d, t) => progress.update(d, t), ctx.relay(), ctx.personKeySecret()),
      )
        .catch((e: unknown) => {
          if (e instanceof ImportFileError) throw new CliError(`${file}: ${e.message}`);
          if ((e as NodeJS.ErrnoException)?.code === 'ENOENT') throw new CliError(`${file}: no such file`);
          throw e;
        })
        .finally(() => progress.stop());
      const errors = report.filter((l) => l.outcome === 'error');
      const recorded = report.length - errors.length;
      const notices = report.reduce((n, l) => n + (l.notices ?? 0), 0);
      if (opts.json) ctx.io.out(JSON.stringify({ recorded, errors: errors.length, notices, lines: report }, null, 2));
      else {
        ctx.io.out(
          [
            `${recorded} opt-outs recorded, ${errors.length} lines refused, ${notices} revocation notices`,
            ...errors.map((l) => `line ${l.line}: ${l.error}`),
          ].join('\n'),
        );
      }
      if (errors.length > 0)
        throw new CliError(
          `${errors.length} of ${report.length} lines were not recorded (listed above); fix them and import those lines again`,
        );
    });

  optout
    .command('status')
    .description('revocation notices their buyer has not acknowledged, by due time')
    .option('--overdue', 'only those past their ten-business-day deadline')
    .option('--limit <n>', 'at most this many (default 100)', limitArgument, 100)
    .option('--json', 'print JSON')
    .action(async (opts: { overdue?: boolean; limit: number; json?: boolean }) => {
      const now = new Date();
      const notices = await withDatabase(ctx.databaseUrl(), (ds) => new OptOuts(ds).open(opts.overdue ? now : null, opts.limit));
      if (opts.json) {
        ctx.io.out(
          JSON.stringify(
            notices.map((n) => noticeJson(n, now)),
            null,
            2,
          ),
        );
        return;
      }
      if (notices.length === 0) {
        ctx.io.out(opts.overdue ? 'no overdue revocation notices' : 'every revocation notice is acknowledged');
        return;
      }
      const rows = notices.map((n) => [
        n.id,
        n.optOutId,
        n.apiKeyId ? `key ${n.apiKeyId}` : n.source,
        n.buyerKind,
        n.buyerName ?? n.buyerId,
        n.leadId,
        n.dueAt.toISOString(),
        isOverdue({ dueAt: n.dueAt, acknowledgedAt: null }, now) ? 'OVERDUE' : 'open',
        String(n.attempts),
        n.lastError ?? (n.queuedAt ? 'sending' : 'queued'),
      ]);
      ctx.io.out(
        formatTable(
          [
            { header: 'NOTICE' },
            { header: 'OPT-OUT' },
            { header: 'SENT BY' },
            { header: 'BUYER' },
            { header: 'NAME' },
            { header: 'LEAD' },
            { header: 'DUE' },
            { header: 'STATE' },
            { header: 'TRIES', align: 'right' },
            { header: 'LAST' },
          ],
          rows,
        ).join('\n'),
      );
    });

  personOptions(optout.command('lift').description('lift the suppression of a person (audited): they may be sold again'))
    .requiredOption('--reason <text>', 'why (kept in the audit)')
    .option('--json', 'print JSON')
    .action(async (opts: PersonOptions & { reason: string }) => {
      const keys = keysOf(ctx, opts);
      if (opts.reason.trim() === '' || opts.reason.length > 500) throw new CliError('--reason must be 1 to 500 characters', EXIT.usage);
      const lifted = await withDatabase(ctx.databaseUrl(), (ds) => new OptOuts(ds).lift(keys, 'operator', opts.reason));
      if (opts.json) ctx.io.out(JSON.stringify({ lifted }, null, 2));
      else ctx.io.out(lifted.length > 0 ? `suppression lifted: ${lifted.join(' and ')}` : 'nothing to lift: these keys are not suppressed');
    });

  optout
    .command('list')
    .description("an API key's opt-outs, oldest first: what each suppressed, its notices, its reversal")
    .requiredOption('--key <id>', 'the API key (keys list shows them)', uuidArgument)
    .option('--since <iso>', 'received at or after (a date is midnight UTC)', instantArgument)
    .option('--until <iso>', 'received before', instantArgument)
    .option('--limit <n>', 'at most this many (default 1000)', limitArgument, 1000)
    .option('--json', 'print JSON')
    .action(async (opts: { key: string; since?: Date; until?: Date; limit: number; json?: boolean }) => {
      checkWindow(opts.since, opts.until);
      const listed = await withDatabase(ctx.databaseUrl(), (ds) =>
        new OptOuts(ds).byKey(opts.key, opts.since ?? null, opts.until ?? null, opts.limit),
      );
      if (opts.json) {
        ctx.io.out(JSON.stringify(listed.map(optOutJson), null, 2));
        return;
      }
      if (listed.length === 0) {
        ctx.io.out(`no opt-outs sent with key ${opts.key}${opts.since ? ` since ${opts.since.toISOString()}` : ''}`);
        return;
      }
      ctx.io.out(
        formatTable(
          [
            { header: 'OPT-OUT' },
            { header: 'RECEIVED' },
            { header: 'AFFILIATE' },
            { header: 'KEY' },
            { header: 'PERSON BY' },
            { header: 'HELD', align: 'right' },
            { header: 'NOTICES SENT/OPEN/CANCELLED' },
            { header: 'REVERSED' },
          ],
          listed.map((o) => [
            o.id,
            o.receivedAt.toISOString(),
            o.affiliateId ?? '-',
            o.apiKeyId ?? '-',
            o.keys.join('+'),
            String(o.keysHeld),
            `${o.notices.sent}/${o.notices.open}/${o.notices.cancelled}`,
            o.reversal ? `${o.reversal.at.toISOString()} by ${o.reversal.by}: ${o.reversal.reason}` : '-',
          ]),
        ).join('\n'),
      );
    });

  optout
    .command('reverse')
    .argument('[opt_out_ids...]', 'the opt-outs to reverse (optout list shows them)')
    .description(
      'reverse opt-outs (audited): lift the suppressions they hold unless another opt-out of the person holds them, cancel their notices not yet sent',
    )
    .option('--key <id>', "instead of ids: the API key's opt-outs received in [--since, --until)", uuidArgument)
    .option('--since <iso>', 'with --key: received at or after (required with --key)', instantArgument)
    .option('--until <iso>', 'with --key: received before (default: now)', instantArgument)
    .requiredOption('--reason <text>', 'why, with the ticket (kept in the audit)')
    .option('--by <name>', 'who reverses (kept in the audit; default: the login name)')
    .option('--json', 'print JSON')
    .action(async (ids: string[], opts: { key?: string; since?: Date; until?: Date; reason: string; by?: string; json?: boolean }) => {
      const problem = reversalReasonProblem(opts.reason);
      if (problem) throw new CliError(`--reason: ${problem}`, EXIT.usage);
      const target = reversalTarget(ids, opts);
      const actor = operatorName(opts.by);
      const report = await withDatabase(ctx.databaseUrl(), (ds) => reverseOptOuts(new OptOuts(ds), target, actor, opts.reason));
      ctx.io.out(opts.json ? JSON.stringify(reversalJson(report), null, 2) : reversalText(report));
      const failed = report.refused.filter((r) => r.why !== 'already_reversed');
      if (failed.length > 0) throw new CliError(`${failed.length} opt-out(s) were not reversed (listed above)`);
    });

  optout
    .command('acknowledge')
    .argument('<notice_id>', 'the notice (optout status lists them)', uuidArgument)
    .description('record that a notice reached its buyer by other means (a buyer with no revocation channel)')
    .requiredOption('--reference <text>', "what shows it (the buyer's confirmation)")
    .action(async (noticeId: string, opts: { reference: string }) => {
      if (opts.reference.trim() === '' || opts.reference.length > 200)
        throw new CliError('--reference must be 1 to 200 characters', EXIT.usage);
      const at = await withDatabase(ctx.databaseUrl(), (ds) =>
        new OptOuts(ds).acknowledge(noticeId, { by: 'operator', reference: opts.reference, at: new Date().toISOString() }),
      );
      if (!at) throw new CliError(`no revocation notice ${noticeId}`);
      ctx.io.out(`notice ${noticeId} acknowledged at ${at.toISOString()}`);
    });
}

/** The ids on the command line, or `--key` with `--since` (a wrong command line otherwise: exit 2). */
function reversalTarget(ids: string[], opts: { key?: string; since?: Date; until?: Date }): ReversalTarget {
  if (opts.key !== undefined) {
    if (ids.length > 0) throw new CliError('name the opt-outs either by id or with --key, not both', EXIT.usage);
    if (!opts.since) throw new CliError('--key needs --since (and optionally --until): the range to reverse', EXIT.usage);
    checkWindow(opts.since, opts.until);
    return { apiKeyId: opts.key, since: opts.since, until: opts.until ?? null };
  }
  if (opts.since || opts.until) throw new CliError('--since and --until go with --key', EXIT.usage);
  if (ids.length === 0) throw new CliError('name the opt-outs to reverse: their ids, or --key with --since', EXIT.usage);
  return { ids: ids.map(uuidOrUsage) };
}

function uuidOrUsage(id: string): string {
  try {
    return uuidArgument(id);
  } catch {
    throw new CliError(`opt_out_ids: ${id} is not a UUID`, EXIT.usage);
  }
}

const REFUSED: Record<ReversalReport['refused'][number]['why'], string> = {
  unknown: 'no such opt-out',
  already_reversed: 'reversed before',
  not_reversible: "a deletion request's opt-out is not reversed (optout lift, if the consumer asks)",
};

function reversalText(r: ReversalReport): string {
  const n = r.notices;
  return [
    `${r.reversed.length} opt-out(s) reversed: ${r.keysLifted} suppression key(s) lifted, ${r.keysKept} kept by another opt-out of the person`,
    `notices: ${n.cancelled} cancelled before sending, ${n.underWay} cancelled while being sent (may reach the buyer, never sent again), ` +
      `${n.handedOver} kept for another opt-out, ${n.alreadySent} already sent (not withdrawn)`,
    ...r.refused.map((x) => `${x.id}: ${REFUSED[x.why]}`),
  ].join('\n');
}

function reversalJson(r: ReversalReport) {
  return {
    reversed: r.reversed,
    refused: r.refused,
    keys_lifted: r.keysLifted,
    keys_kept: r.keysKept,
    notices: {
      cancelled: r.notices.cancelled,
      under_way: r.notices.underWay,
      handed_over: r.notices.handedOver,
      already_sent: r.notices.alreadySent,
    },
  };
}

function optOutJson(o: ListedOptOut) {
  return {
    opt_out_id: o.id,
    received_at: o.receivedAt.toISOString(),
    recorded_at: o.recordedAt.toISOString(),
    source: o.source,
    affiliate_id: o.affiliateId,
    api_key_id: o.apiKeyId,
    reference: o.reference,
    keys: o.keys,
    keys_held: o.keysHeld,
    notices: o.notices,
    reversal: o.reversal && { at: o.reversal.at.toISOString(), by: o.reversal.by, reason: o.reversal.reason },
  };
}

function noticeJson(n: OpenNotice, now: Date) {
  return {
    notice_id: n.id,
    opt_out_id: n.optOutId,
    source: n.source,
    affiliate_id: n.affiliateId,
    api_key_id: n.apiKeyId,
    buyer_kind: n.buyerKind,
    buyer_id: n.buyerId,
    buyer_name: n.buyerName,
    lead_id: n.leadId,
    offer_id: n.offerId,
    received_at: n.receivedAt.toISOString(),
    due_at: n.dueAt.toISOString(),
    overdue: isOverdue({ dueAt: n.dueAt, acknowledgedAt: null }, now),
    attempts: n.attempts,
    last_error: n.lastError,
    queued: n.queuedAt !== null,
  };
}
