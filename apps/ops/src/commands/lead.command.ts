import { Command } from 'commander';
import { DataSource } from 'typeorm';
import { uuidArgument } from '../cli-arguments';
import { CliError } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { explainLead } from '../lead-explain/lead-explain';
import { formatLeadExplanation } from '../lead-explain/lead-explain.format';
import { loadLeadStory } from '../leads/lead-story';
import { formatLeadStory } from '../leads/lead-story.format';

/** `lead show|explain <svc_lead_id> [--json]`: what happened to one lead, and why (docs/runbooks/lead-investigation.md). */
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
  readCommand(
    'show',
    'the whole story of a lead: search, results, checks, submits, consent, sale, caps, delivery; contact data masked',
    loadLeadStory,
    formatLeadStory,
  );
  readCommand(
    'explain',
    'why each offer of the search was or was not shown (the deciding rule and its facts, program by program), and the rule behind each submit; contact data masked',
    (ds, id) => explainLead(ds, id, ctx.personKeySecret()),
    formatLeadExplanation,
  );
}
