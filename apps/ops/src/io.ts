/** Where a command writes: stdout carries results (JSON for keys), stderr everything else. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Where progress bars may draw (stderr); a bar is drawn only when this is a TTY. */
  progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  progressStream: process.stderr,
};
