/** Exit codes of the operator CLI. */
export const EXIT = {
  ok: 0,
  /** The command was refused or failed: invalid file, unknown affiliate, database unreachable, … */
  failed: 1,
  /** The command line itself is wrong: unknown command or option, missing argument. */
  usage: 2,
} as const;

/** An error the operator can act on: its message is printed as is on stderr. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}
