import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

/**
 * The Compose service `retention` of docker-compose.yml as Compose reads it,
 * for its offline checks (test/unit/compose-retention.spec.ts) and the runs of
 * its shell loop (test/tools/compose-retention.tool-spec.ts).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- docker-compose.yml parsed from YAML, read by any path the checks name; its shape is what they check.
export type Any = any;

export const ROOT = resolve(__dirname, '../..');
export const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Any> };
export const retentionService = compose.services.retention;
/** `npm run ops -- <args>` runs this and the args. */
export const opsScript = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.ops;

/** Compose's interpolation of `${VAR:-default}` and `$$`, from the given host environment. */
export function interpolate(value: string, host: Record<string, string> = {}): string {
  return value.replace(/\$\$|\$\{([A-Z_]+)(?::-([^}]*))?\}/g, (all, name: string | undefined, fallback: string | undefined) =>
    all === '$$' ? '$' : host[name!] || (fallback ?? ''),
  );
}

/** The loop as written in docker-compose.yml (`$$` for the shell's `$`). */
export const rawRetentionLoop: string = retentionService.command[2];
/** The loop as the container's shell gets it. */
export const retentionLoop = interpolate(rawRetentionLoop);
