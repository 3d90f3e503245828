import { MappingConfigError } from './mapping-errors';

/** Where `${env:NAME}` references in header values are read (process.env; tests pass their own). */
export type Environment = Readonly<Record<string, string | undefined>>;

const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * Configured headers with their environment references filled in, names
 * lower-cased (so a caller's own headers, set after, win and nothing is sent
 * twice). Secrets stay out of the catalog: it stores the reference only. A
 * reference to a variable that is unset or empty, or a value a header cannot
 * carry, is a MappingConfigError naming the header and the variable, never a
 * value.
 */
export function fillHeaders(templates: Readonly<Record<string, string>> | undefined, env: Environment): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(templates ?? {})) {
    const value = template.replace(ENV_REF, (_, variable: string) => {
      const set = env[variable];
      if (set === undefined || set === '') throw new MappingConfigError(`header ${name}: environment variable ${variable} is not set`);
      return set;
    });
    if (!HEADER_VALUE.test(value))
      throw new MappingConfigError(`header ${name}: the value is not printable ASCII (check the environment variables it names)`);
    out[name.toLowerCase()] = value;
  }
  return out;
}
