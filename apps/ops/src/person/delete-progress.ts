import { CountProgress, countProgress } from '../count-progress';
import type { CliIo } from '../io';

/** Progress of `person delete` on stderr: the places searched (each search partition, then the leads). */
export function deleteProgress(io: CliIo): CountProgress {
  return countProgress(io, {
    bar: 'person delete [{bar}] {value}/{total} places searched',
    line: (done, total) => `person delete: ${done}/${total} places searched (search partitions, then leads)`,
  });
}
