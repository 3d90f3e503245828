import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { ConsentLedger, SealedContacts } from '@lr/persistence';
import { chainConsentLedger } from '@lr/jobs';
import { checkWindow, instantArgument, uuidArgument } from '../cli-arguments';
import { CliError, EXIT } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase, withSealer } from '../database';
import { buildBundle, ExportQuery, sealedPersonalOf, writeBundle } from '../consent/export-bundle';
import { bundleLines, verifyBundle } from '../consent/verify-bundle';
import { verifyChain, verifyJson, verifyLines } from '../consent/verify-chain';
import { verifyProgress } from '../consent/verify-progress';

/** Recomputing a long chain reads it in pages; a page may take a while on a busy database. */
const LONG_STATEMENTS = { statementTimeoutMs: 10 * 60_000 };

/**
 * `consent chain | verify | export | verify-bundle` (docs/consent-ledger.md,
 * docs/runbooks/consent-dispute.md): the tamper-evident consent ledger.
 */
export function registerConsentCommands(program: Command, ctx: CliContext): void {
  const consent = program.command('consent').description('the consent ledger: verify the chain, export and check a dispute bundle');

  consent
    .command('chain')
    .description('link the appended consent events into the chain now and seal yesterday if due (the checks do it every second)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const run = await withDatabase(ctx.databaseUrl(), (ds) => chainConsentLedger(new ConsentLedger(ds)), LONG_STATEMENTS);
      if (run.kind === 'busy') throw new CliError('another chainer holds the chain lock (a checks replica): it is linking them now');
      if (opts.json) ctx.io.out(JSON.stringify({ linked: run.linked, head: run.head, sealed: run.sealed }, null, 2));
      else
        ctx.io.out(
          `linked ${run.linked} consent events; chain head at position ${run.head}${run.sealed ? `; sealed ${run.sealed.day}: ${run.sealed.count} records, head ${run.sealed.headDigest}` : ''}`,
        );
    });

  consent
    .command('verify')
    .description('recompute the chain from the stored evidence and name the first record that does not match (exit 1)')
    .option('--from <iso>', 'only records chained at or after (the digest before them is taken as stored)', instantArgument)
    .option('--to <iso>', 'only records chained before', instantArgument)
    .option('--json', 'print JSON')
    .action(async (opts: { from?: Date; to?: Date; json?: boolean }) => {
      checkWindow(opts.from, opts.to);
      const progress = verifyProgress(ctx.io);
      const report = await withDatabase(
        ctx.databaseUrl(),
        (ds) =>
          verifyChain(new ConsentLedger(ds), { from: opts.from ?? null, to: opts.to ?? null, onProgress: (d, t) => progress.update(d, t) }),
        LONG_STATEMENTS,
      ).finally(() => progress.stop());
      ctx.io.out(opts.json ? JSON.stringify(verifyJson(report), null, 2) : verifyLines(report).join('\n'));
      if (report.break)
        throw new CliError(
          `the consent chain does not match at position ${report.break.position}${report.break.leadId ? ` (svc_lead_id ${report.break.leadId})` : ''}`,
        );
    });

  consent
    .command('export')
    .description(
      "write a dispute bundle of one person's consent events: JSON, an HTML page, the records and their proof; shows contact data",
    )
    .addOption(new Option('--phone <phone>', "the person's phone (normalized as for duplicates)").conflicts(['email', 'lead']))
    .addOption(new Option('--email <email>', "the person's email (normalized as for duplicates)").conflicts(['phone', 'lead']))
    .addOption(
      new Option('--lead <svc_lead_id>', "a submit's svc_lead_id: that person's events (through the lead's email and phone)")
        .argParser(uuidArgument)
        .conflicts(['phone', 'email']),
    )
    .requiredOption('--out <dir>', 'a new or empty folder for the bundle')
    .action(async (opts: { phone?: string; email?: string; lead?: string; out: string }) => {
      const q: ExportQuery | null =
        opts.phone !== undefined
          ? { by: 'phone', value: opts.phone }
          : opts.email !== undefined
            ? { by: 'email', value: opts.email }
            : opts.lead !== undefined
              ? { by: 'lead', value: opts.lead }
              : null;
      if (!q) throw new CliError('name the person: --phone, --email or --lead', EXIT.usage);
      const out = resolve(opts.out);
      const written = await withDatabase(
        ctx.databaseUrl(),
        async (ds) => {
          const ledger = new ConsentLedger(ds);
          // Events appended a moment ago are linked first (the checks do it every second; one chainer at a time).
          const run = await chainConsentLedger(ledger);
          // A seal made here is not in the checks' logs: say it, so the day's head has a copy outside the database.
          if (run.kind === 'chained' && run.sealed)
            ctx.io.err(`consent chain sealed ${run.sealed.day}: ${run.sealed.count} records, head digest ${run.sealed.headDigest}`);
          const { bundle, lines } = await withSealer(ctx, (sealer) =>
            buildBundle(ledger, q, ctx.personKeySecret(), new Date(), sealedPersonalOf(new SealedContacts(ds), sealer)),
          );
          const files = await writeBundle(out, bundle, lines);
          return { bundle, files };
        },
        LONG_STATEMENTS,
      );
      const b = written.bundle;
      ctx.io.out(
        [
          `wrote ${out}: ${b.events.length} consent event${b.events.length === 1 ? '' : 's'} (${written.files.length} files); open index.html, check with: npm run ops -- consent verify-bundle ${out}`,
          ...(b.unchained_lead_ids.length > 0
            ? [`not chained yet, left out: ${b.unchained_lead_ids.join(', ')} (run again in a few seconds)`]
            : []),
        ].join('\n'),
      );
      ctx.io.err("the bundle holds the person's contact data: hand it only to whom the dispute concerns");
    });

  consent
    .command('verify-bundle')
    .argument('<dir>', 'a folder written by consent export')
    .option('--json', 'print JSON')
    .description('check a dispute bundle offline (no database): files, records, digests, neighbours, seals, page')
    .action(async (dir: string, opts: { json?: boolean }) => {
      const check = await verifyBundle(resolve(dir));
      ctx.io.out(opts.json ? JSON.stringify(check, null, 2) : bundleLines(dir, check).join('\n'));
      if (!check.ok) throw new CliError(`the bundle does not verify: ${check.problem}`);
    });
}
