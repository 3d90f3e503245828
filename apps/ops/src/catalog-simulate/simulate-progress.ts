import { Presets, SingleBar } from 'cli-progress';
import type { CliIo } from '../io';

/** A progress bar on stderr for a simulation, drawn only when stderr is a terminal (like `dlq replay`). */
export function simulateProgress(io: CliIo): { update(done: number, total: number): void; stop(): void } {
  const stream = io.progressStream;
  if (!stream?.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar({ stream, format: 'simulate [{bar}] {value}/{total} searches, {eta_formatted} left', hideCursor: true, etaBuffer: 20 }, Presets.shades_classic);
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.setTotal(total);
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
