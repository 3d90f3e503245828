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

/**
 * Header names that carry credentials: Authorization and Proxy-Authorization,
 * Cookie, and any name with auth, token, key, secret, password, passwd,
 * credential, signature or session in it (X-Api-Key, X-Auth-Token, …).
 */
const SECRET_HEADER_NAME = /^(?:proxy-)?authorization$|^cookie$|auth|token|key|secret|passw(?:or)?d|credential|signature|session/i;
/** The schemes an Authorization value may spell out in front of its reference (`Bearer ${env:TOKEN}`). */
const AUTH_SCHEME = /^(?:Bearer|Basic|Token|ApiKey|Key) $/;
const ENV_REFS_ONLY = /^(?:\$\{env:[A-Za-z_][A-Za-z0-9_]*\})+$/;

export function isSecretHeaderName(name: string): boolean {
  return SECRET_HEADER_NAME.test(name);
}

/**
 * A secret in the catalog would be stored, and copied into every message
 * that carries the partner or the offer: a header whose name says it carries
 * a credential must take its value from the environment, `${env:NAME}` (an
 * Authorization value may put its scheme in front: `Bearer ${env:NAME}`).
 * Answers why a value is refused, or null. The value is never quoted.
 */
export function literalSecretProblem(name: string, value: string): string | null {
  if (!isSecretHeaderName(name)) return null;
  const scheme = /^(?:proxy-)?authorization$/i.test(name) ? (/^\S+ /.exec(value)?.[0] ?? '') : '';
  const rest = AUTH_SCHEME.test(scheme) ? value.slice(scheme.length) : value;
  if (ENV_REFS_ONLY.test(rest)) return null;
  return (
    'carries a credential and must be an environment reference ${env:NAME}' +
    (/^(?:proxy-)?authorization$/i.test(name) ? ' (optionally after a scheme: Bearer ${env:NAME})' : '') +
    ', never a literal value: put the value in the environment of the app that calls'
  );
}
