import { InvalidArgumentError } from 'commander';
import { isUuid } from '@lr/persistence';
import { CliError, EXIT } from './cli-error';
import { parseIsoInstant } from './iso-instant';

/**
 * commander argument parsers. A value they refuse is a wrong command line:
 * commander names the argument or option, prints the help hint, and the CLI
 * exits 2 (a well-formed value that names nothing is a failed lookup, exit 1).
 */
export function uuidArgument(value: string): string {
  if (!isUuid(value)) throw new InvalidArgumentError('must be a UUID');
  return value.toLowerCase();
}

/** `--from 2026-11-01` (midnight UTC) or a date-time with a zone. */
export function instantArgument(value: string): Date {
  const parsed = parseIsoInstant(value);
  if ('error' in parsed) throw new InvalidArgumentError(parsed.error);
  return parsed.at;
}

/** `--limit 100`: a whole number from 1. */
export function limitArgument(value: string): number {
  if (!/^[1-9]\d{0,6}$/.test(value)) throw new InvalidArgumentError('must be a whole number from 1 to 9999999');
  return Number(value);
}

/** `--reference TICKET-1234`: an operator's reference kept with a request (opt_outs.reference holds at most 200 characters). */
export function referenceArgument(value: string): string {
  if (value.trim() === '' || value.length > 200) throw new InvalidArgumentError('must be 1 to 200 characters');
  return value;
}

/** A window [from, to) of the command line: `--from` must come before `--to` (a wrong command line, exit 2). Either may be absent. */
export function checkWindow(from: Date | undefined, to: Date | undefined): void {
  if (from && to && from.getTime() >= to.getTime()) {
    throw new CliError(`--from ${from.toISOString()} must be before --to ${to.toISOString()} (the window is [from, to))`, EXIT.usage);
  }
}
