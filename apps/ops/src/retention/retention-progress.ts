import { Presets, SingleBar } from 'cli-progress';
import { formatBytes, formatCount } from '../byte-size';
import type { CliIo } from '../io';
import type { RetentionStep } from './retention-run';

export interface RetentionProgress {
  step(s: RetentionStep): void;
  stop(): void;
}

/**
 * Progress of a retention run on stderr, one partition at a time: a bar when
 * stderr is a terminal (like `dlq replay`), else one line per partition, so
 * that a scheduled run's log shows each drop as it happens.
 */
export function retentionProgress(io: CliIo): RetentionProgress {
  const stream = io.progressStream;
  if (!stream?.isTTY) {
    return {
      step: ({ index, total, partition: p, dryRun }) =>
        io.err(
          `retention ${index}/${total}: ${dryRun ? 'would drop' : 'dropped'} ${p.name} (${formatCount(p.rows)} rows, ${formatBytes(p.bytes)})${p.ms === null ? '' : ` in ${p.ms} ms`}`,
        ),
      stop: () => undefined,
    };
  }
  const bar = new SingleBar(
    { stream, format: 'retention [{bar}] {value}/{total} partitions, last {partition}', hideCursor: true },
    Presets.shades_classic,
  );
  let started = false;
  return {
    step({ index, total, partition }) {
      if (!started) {
        bar.start(total, 0, { partition: '' });
        started = true;
      }
      bar.update(index, { partition: partition.name });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
