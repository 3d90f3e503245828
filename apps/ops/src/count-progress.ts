import { Presets, SingleBar } from 'cli-progress';
import type { CliIo } from './io';

export interface CountProgress {
  update(done: number, total: number): void;
  stop(): void;
}

/**
 * Progress of a long count on stderr: a bar on a terminal (`bar` is its
 * cli-progress format), else `line` at every tenth of the total, so a
 * scheduled run's log shows it moving.
 */
export function countProgress(io: CliIo, o: { bar: string; line: (done: number, total: number) => string }): CountProgress {
  const stream = io.progressStream;
  if (!stream?.isTTY) {
    let shown = -1;
    return {
      update(done, total) {
        const tenth = total === 0 ? 10 : Math.floor((done * 10) / total);
        if (tenth === shown) return;
        shown = tenth;
        io.err(o.line(done, total));
      },
      stop: () => undefined,
    };
  }
  const bar = new SingleBar({ stream, format: o.bar, hideCursor: true, etaBuffer: 50 }, Presets.shades_classic);
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
