import { SchoolConfigError } from './school-errors';
import type { SchoolDelivery } from './school-adapter';

/** Where `${env:NAME}` references in header values are read (process.env; tests pass their own). */
export type Environment = Readonly<Record<string, string | undefined>>;

const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * The request headers of a delivery: the settings' headers with their
 * environment references filled in, and `Idempotency-Key: <lead id>` (names
 * lower-cased, so ours wins and nothing is sent twice). A reference to a
 * variable that is not set is a SchoolConfigError naming header and variable,
 * never the value.
 */
export function schoolHeaders(d: SchoolDelivery, env: Environment): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(d.settings.headers ?? {})) {
    const value = template.replace(ENV_REF, (_, variable: string) => {
      const set = env[variable];
      if (set === undefined || set === '') throw new SchoolConfigError(`header ${name}: environment variable ${variable} is not set`);
      return set;
    });
    if (!HEADER_VALUE.test(value)) throw new SchoolConfigError(`header ${name}: the value is not printable ASCII (check the environment variables it names)`);
    out[name.toLowerCase()] = value;
  }
  out['idempotency-key'] = d.leadId;
  return out;
}
