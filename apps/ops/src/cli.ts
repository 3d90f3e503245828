import { Command, CommanderError } from 'commander';
import { CliError, EXIT } from './cli-error';
import { registerCatalogCommands } from './commands/catalog.command';
import { registerConsentCommands } from './commands/consent.command';
import { registerDataKeysCommands } from './commands/data-keys.command';
import { registerDbCommands } from './commands/db.command';
import { registerDeliveriesCommands } from './commands/deliveries.command';
import { registerDlqCommands } from './commands/dlq.command';
import { registerKeysCommands } from './commands/keys.command';
import { registerLeadCommands } from './commands/lead.command';
import { registerOptOutCommands } from './commands/opt-out.command';
import { registerPersonCommands } from './commands/person.command';
import { registerReportCommands } from './commands/report.command';
import { registerRetentionCommands } from './commands/retention.command';
import { registerReturnsCommands } from './commands/returns.command';
import { registerStatementCommands } from './commands/statement.command';
import { registerStorageCommands } from './commands/storage.command';
import { CliContext } from './context';
import { CliIo, processIo } from './io';

/** Each command group registers itself; a new group is one file in commands/ and one line here. */
const COMMAND_GROUPS = [
  registerDbCommands,
  registerCatalogCommands,
  registerKeysCommands,
  registerLeadCommands,
  registerReportCommands,
  registerDlqCommands,
  registerDeliveriesCommands,
  registerRetentionCommands,
  registerStorageCommands,
  registerConsentCommands,
  registerOptOutCommands,
  registerReturnsCommands,
  registerStatementCommands,
  registerPersonCommands,
  registerDataKeysCommands,
];

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('ops')
    .description('Lead router operator CLI')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => ctx.io.out(s.trimEnd()), writeErr: (s) => ctx.io.err(s.trimEnd()) });
  for (const register of COMMAND_GROUPS) register(program, ctx);
  // Errors of subcommands too surface as CommanderError instead of exiting the process.
  const exitOverride = (cmd: Command) => {
    cmd.exitOverride();
    cmd.commands.forEach(exitOverride);
  };
  exitOverride(program);
  return program;
}

/**
 * Runs one command line (without `node main.js`) and returns the exit code:
 * 0 done, 1 refused or failed, 2 bad command line. Results go to stdout,
 * errors to stderr.
 */
export async function runCli(argv: string[], opts: { io?: CliIo; env?: NodeJS.ProcessEnv } = {}): Promise<number> {
  const io = opts.io ?? processIo;
  const ctx = new CliContext(io, opts.env ?? process.env);
  const program = buildProgram(ctx);
  try {
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return EXIT.usage;
    }
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Commander already printed its message (and help) through configureOutput.
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (e instanceof CliError) {
      io.err(`error: ${e.message}`);
      return e.exitCode;
    }
    io.err(`error: ${(e as Error)?.stack ?? String(e)}`);
    return EXIT.failed;
  }
}
