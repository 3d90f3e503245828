import { readFile } from 'node:fs/promises';
import { CliError } from '../cli-error';

/** Reads and parses a catalog file; unreadable or malformed JSON is refused with the line and column. */
export async function readCatalogFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`${file}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    const message = (e as Error).message;
    const at = /position (\d+)/.exec(message);
    const where = at ? ` at ${lineAndColumn(text, Number(at[1]))}` : '';
    throw new CliError(`${file}: not valid JSON${where}: ${message}`);
  }
}

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}
