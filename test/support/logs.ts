/** One JSON log line of an app, as written to stdout. */
export type LogLine = Record<string, unknown> & { msg?: unknown; correlation_id?: unknown };

/** The JSON lines of a process's output (non-JSON lines are an error: every app logs JSON only). */
export function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as LogLine;
      } catch {
        throw new Error(`not a JSON log line: ${l.slice(0, 300)}`);
      }
    });
}

/** The `message handled` lines the AMQP transport writes, one per message, of the given type. */
export function handledMessages(lines: LogLine[], type: string): LogLine[] {
  return lines.filter((l) => l.msg === 'message handled' && l.type === type);
}

/** Waits until `probe` holds (apps log after they answered, so a line may come a moment later). */
export async function eventually(probe: () => boolean, timeoutMs = 10_000, what = 'the condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
