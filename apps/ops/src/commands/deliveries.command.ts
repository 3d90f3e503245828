import { Command, InvalidArgumentError } from 'commander';
import { UnresolvedDeliveries } from '@lr/persistence';
import { checkWindow, instantArgument } from '../cli-arguments';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { formatTable } from '../text-table';

const DAY_MS = 24 * 3600 * 1000;

function positiveInt(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new InvalidArgumentError('must be an integer from 1 to 100000');
  return n;
}

/**
 * `deliveries unresolved`: leads whose buyer call a crash cut and that could
 * not be sent again (the buyer does not honour idempotency keys). They were
 * decided unanswered (`BUYER_REJECTED`, `No response - Client`), nobody was
 * paid, and the buyer may hold the lead: each is for the operator to check
 * with the buyer (docs/runbooks/unresolved-deliveries.md).
 */
export function registerDeliveriesCommands(program: Command, ctx: CliContext): void {
  const deliveries = program.command('deliveries').description('deliveries to buyers');
  deliveries
    .command('unresolved')
    .description('leads a crash cut during the buyer call that could not be sent again: the buyer may hold them, nobody was paid')
    .option('--from <iso>', 'calls started at or after (default: 30 days ago)', instantArgument)
    .option('--to <iso>', 'calls started before (default: now)', instantArgument)
    .option('--limit <n>', 'at most this many, oldest first', positiveInt, 1000)
    .option('--json', 'print JSON')
    .action(async (opts: { from?: Date; to?: Date; limit: number; json?: boolean }) => {
      const to = opts.to ?? new Date();
      const from = opts.from ?? new Date(to.getTime() - 30 * DAY_MS);
      checkWindow(from, to);
      const rows = await withDatabase(ctx.databaseUrl(), (ds) => new UnresolvedDeliveries(ds).list(from, to, opts.limit));
      if (opts.json) {
        ctx.io.out(JSON.stringify({ from: from.toISOString(), to: to.toISOString(), count: rows.length, deliveries: rows }, null, 2));
        return;
      }
      if (rows.length === 0) {
        ctx.io.out(`no unresolved deliveries with a call started in [${from.toISOString()}, ${to.toISOString()})`);
        return;
      }
      const table = formatTable(
        [
          { header: 'svc_lead_id' },
          { header: 'call started' },
          { header: 'buyer' },
          { header: 'offer' },
          { header: 'affiliate' },
          { header: 'decided' },
          { header: 'test lead' },
        ],
        rows.map((r) => [
          r.leadId,
          r.startedAt.toISOString(),
          `${r.buyerKind} ${r.buyer}`,
          r.offerName,
          r.affiliateId,
          r.code ?? 'PENDING',
          String(r.isTest),
        ]),
      );
      ctx.io.out(
        [
          ...table,
          '',
          `${rows.length} unresolved deliver${rows.length === 1 ? 'y' : 'ies'}; each: ops lead show <svc_lead_id>, then ask the buyer`,
        ].join('\n'),
      );
    });
}
