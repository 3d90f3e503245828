import { userInfo } from 'node:os';
import { Command } from 'commander';
import { DataSource } from 'typeorm';
import { LeadStoryRepository, SealedContacts } from '@lr/persistence';
import { referenceArgument, uuidArgument } from '../cli-arguments';
import { CliError } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase, withSealer } from '../database';
import { explainLead } from '../lead-explain/lead-explain';
import { formatLeadExplanation } from '../lead-explain/lead-explain.format';
import { leadStoryOf } from '../leads/lead-story';
import { formatLeadStory } from '../leads/lead-story.format';
import { revealContact, revealedJson, revealLines, revealsLines } from '../leads/reveal-contact';

/**
 * `lead show|explain <svc_lead_id> [--json]`: what happened to one lead, and why (docs/runbooks/lead-investigation.md);
 * `lead show --reveal` and `lead reveals`: its contact data unmasked, and who saw it (docs/operator-cli.md).
 */
export function registerLeadCommands(program: Command, ctx: CliContext): void {
  const lead = program.command('lead').description('investigate leads');
  const readCommand = <T>(
    name: string,
    description: string,
    load: (ds: DataSource, id: string) => Promise<T | null>,
    format: (x: T) => string[],
  ) =>
    lead
      .command(name)
      .argument('<svc_lead_id>', "a search's or a submit's svc_lead_id", uuidArgument)
      .option('--json', 'print it as JSON')
      .description(description)
      .action(async (id: string, opts: { json?: boolean }) => {
        const found = await withDatabase(ctx.databaseUrl(), (ds) => load(ds, id));
        if (!found) throw new CliError(`no search or submit has svc_lead_id ${id}`);
        ctx.io.out(opts.json ? JSON.stringify(found, null, 2) : format(found).join('\n'));
      });
  lead
    .command('show')
    .argument('<svc_lead_id>', "a search's or a submit's svc_lead_id", uuidArgument)
    .option('--json', 'print it as JSON')
    .option('--reveal', "also show this search's or submit's contact data unmasked (opened from its sealed part); each reveal is recorded")
    .option('--reason <text>', 'why the contact data is revealed (a ticket), kept with the reveal', referenceArgument)
    .option('--by <operator>', 'who reveals it (default: the OS user)', referenceArgument)
    .description(
      'the whole story of a lead: search, results, checks, submits, consent, sale, caps, delivery; contact data masked unless --reveal',
    )
    .action(async (id: string, opts: { json?: boolean; reveal?: boolean; reason?: string; by?: string }) => {
      const shown = await withDatabase(ctx.databaseUrl(), async (ds) => {
        const rows = await new LeadStoryRepository(ds).read(id);
        if (!rows) return null;
        const story = leadStoryOf(id, rows);
        if (!opts.reveal) return { story, revealed: null };
        const operator = opts.by ?? userInfo().username;
        const revealed = await withSealer(ctx, (sealer) =>
          revealContact({ contacts: new SealedContacts(ds), opener: sealer }, rows, { id, operator, reason: opts.reason ?? null }),
        );
        return { story, revealed };
      });
      if (!shown) throw new CliError(`no search or submit has svc_lead_id ${id}`);
      const { story, revealed } = shown;
      if (opts.json) ctx.io.out(JSON.stringify(revealed ? { ...story, revealed: revealedJson(revealed) } : story, null, 2));
      else ctx.io.out([...formatLeadStory(story), ...(revealed ? ['', ...revealLines(revealed)] : [])].join('\n'));
    });
  lead
    .command('reveals')
    .argument('<svc_lead_id>', "a search's or a submit's svc_lead_id", uuidArgument)
    .option('--json', 'print it as JSON')
    .description("who revealed this search's or submit's contact data (lead show --reveal), when and why")
    .action(async (id: string, opts: { json?: boolean }) => {
      const reveals = await withDatabase(ctx.databaseUrl(), (ds) => new SealedContacts(ds).reveals(id));
      ctx.io.out(
        opts.json
          ? JSON.stringify(
              reveals.map((r) => ({ operator: r.operator, reason: r.reason, revealed_at: r.revealedAt.toISOString() })),
              null,
              2,
            )
          : revealsLines(id, reveals).join('\n'),
      );
    });
  readCommand(
    'explain',
    'why each offer of the search was or was not shown (the deciding rule and its facts, program by program), and the rule behind each submit; contact data masked',
    (ds, id) => explainLead(ds, id, ctx.personKeySecret()),
    formatLeadExplanation,
  );
}
