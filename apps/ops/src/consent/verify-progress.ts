import { Presets, SingleBar } from 'cli-progress';
import type { CliIo } from '../io';

/**
 * Progress of `consent verify` on stderr: a bar on a terminal, else a line at
 * every tenth of the records (a scheduled check's log shows it moving).
 */
export function verifyProgress(io: CliIo): { update(done: number, total: number): void; stop(): void } {
  const stream = io.progressStream;
  if (!stream?.isTTY) {
    let shown = -1;
    return {
      update(done, total) {
        const tenth = total === 0 ? 10 : Math.floor((done * 10) / total);
        if (tenth === shown) return;
        shown = tenth;
        io.err(`consent verify: ${done}/${total} records recomputed`);
      },
      stop: () => undefined,
    };
  }
  const bar = new SingleBar({ stream, format: 'consent verify [{bar}] {value}/{total} records, {eta_formatted} left', hideCursor: true, etaBuffer: 50 }, Presets.shades_classic);
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
