import { fillHeaders, MappingConfigError, type Environment } from '@lr/domain';
import { SchoolConfigError } from './school-errors';
import type { SchoolDelivery } from './school-adapter';

export type { Environment } from '@lr/domain';

/**
 * The request headers of a delivery: the settings' headers with their
 * environment references filled in (libs/domain fillHeaders), and
 * `Idempotency-Key: <lead id>` (names lower-cased, so ours wins and nothing
 * is sent twice). A reference to a variable that is not set is a
 * SchoolConfigError naming header and variable, never the value.
 */
export function schoolHeaders(d: SchoolDelivery, env: Environment): Record<string, string> {
  try {
    return { ...fillHeaders(d.settings.headers, env), 'idempotency-key': d.leadId };
  } catch (e) {
    throw e instanceof MappingConfigError ? new SchoolConfigError(e.problem) : e;
  }
}
