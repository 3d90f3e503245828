import { CountProgress, countProgress } from '../count-progress';
import type { CliIo } from '../io';

/** Progress of `catalog simulate` on stderr: a bar on a terminal, else a line at every tenth of the searches. */
export function simulateProgress(io: CliIo): CountProgress {
  return countProgress(io, {
    bar: 'simulate [{bar}] {value}/{total} searches, {eta_formatted} left',
    line: (done, total) => `catalog simulate: ${done}/${total} searches replayed`,
  });
}
