import { CountProgress, countProgress } from '../count-progress';
import type { CliIo } from '../io';

/**
 * Progress of `consent verify` on stderr: a bar on a terminal, else a line at
 * every tenth of the records (a scheduled check's log shows it moving).
 */
export function verifyProgress(io: CliIo): CountProgress {
  return countProgress(io, {
    bar: 'consent verify [{bar}] {value}/{total} records, {eta_formatted} left',
    line: (done, total) => `consent verify: ${done}/${total} records recomputed`,
  });
}
