import { Command } from 'commander';
import { uuidArgument } from '../cli-arguments';
import { CliError } from '../cli-error';
import { CliContext } from '../context';
import { withDatabase } from '../database';
import { loadLeadStory } from '../leads/lead-story';
import { formatLeadStory } from '../leads/lead-story.format';

/** `lead show <svc_lead_id> [--json]`: what happened to one lead (docs/runbooks/lead-investigation.md). */
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
}
