/** A progress line of a bench, on stderr (stdout carries the figures). */
export const benchLog = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);

/**
 * Runs a bench's main() and its clean-up exactly once, whether main ends, fails
 * or the run is interrupted (SIGINT/SIGTERM exit 130 after cleaning up). A
 * failure is printed with its stack and sets exit code 1.
 */
export function runBench(main: () => Promise<void>, cleanUp: () => Promise<void>): void {
  let cleaning: Promise<void> | undefined;
  const once = () => (cleaning ??= cleanUp());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`[bench] ${signal}: stopping\n`);
      void once().finally(() => process.exit(130));
    });
  }
  main()
    .catch((e: unknown) => {
      process.stderr.write(`[bench] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exitCode = 1;
    })
    .finally(() => once());
}
