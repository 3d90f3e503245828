import { Presets, SingleBar } from 'cli-progress';
import type { CliIo } from '../io';

export interface ReplayProgress {
  update(p: { scanned: number; total: number; replayed: number }): void;
  stop(): void;
}

/**
 * A progress bar on stderr for a replay, drawn only when stderr is a terminal
 * (a pipe or a log file gets no bar, only the summary line the command prints).
 */
export function replayProgress(io: CliIo, queue: string): ReplayProgress {
  const stream = io.progressStream;
  if (!stream?.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar(
    {
      stream,
      format: `${queue} [{bar}] {value}/{total} read, {replayed} replayed, {eta_formatted} left`,
      hideCursor: true,
      etaBuffer: 50,
    },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update({ scanned, total, replayed }) {
      if (!started) {
        bar.start(total, 0, { replayed: 0 });
        started = true;
      }
      bar.setTotal(total);
      bar.update(scanned, { replayed });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
