import { Command } from 'commander';
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
  lead
    .command('show')
    .argument('<svc_lead_id>', "a search's or a submit's svc_lead_id", uuidArgument)
    .option('--json', 'print the story as JSON')
    .description('the whole story of a lead: search, results, checks, submits, consent, sale, caps, delivery; contact data masked')
    .action(async (id: string, opts: { json?: boolean }) => {
      const story = await withDatabase(ctx.databaseUrl(), (ds) => loadLeadStory(ds, id));
      if (!story) throw new CliError(`no search or submit has svc_lead_id ${id}`);
      if (opts.json) ctx.io.out(JSON.stringify(story, null, 2));
      else ctx.io.out(formatLeadStory(story).join('\n'));
    });
  lead
    .command('explain')
    .argument('<svc_lead_id>', "a search's or a submit's svc_lead_id", uuidArgument)
    .option('--json', 'print the explanation as JSON')
    .description('why each offer of the search was or was not shown (the deciding rule and its facts, program by program), and the rule behind each submit; contact data masked')
    .action(async (id: string, opts: { json?: boolean }) => {
      const explanation = await withDatabase(ctx.databaseUrl(), (ds) => explainLead(ds, id));
      if (!explanation) throw new CliError(`no search or submit has svc_lead_id ${id}`);
      if (opts.json) ctx.io.out(JSON.stringify(explanation, null, 2));
      else ctx.io.out(formatLeadExplanation(explanation).join('\n'));
    });
}
