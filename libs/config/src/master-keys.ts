import { readFileSync } from 'node:fs';

/** The master keys that wrap the data keys (docs/security.md, Encryption at rest). */
export interface MasterKeys {
  /** The key new data keys are wrapped under. */
  currentId: string;
  /** Every configured key by id: the current one and those data keys may still be wrapped under until `ops keys rewrap`. */
  keys: ReadonlyMap<string, Buffer>;
}

/**
 * The development key used when no master key is configured (production
 * will refuse that: load-config.ts). It is published here, so it protects nothing: it only lets a
 * developer run the system without a secret.
 */
const DEVELOPMENT_KEYS = 'dev:ZGV2ZWxvcG1lbnQta2V5LXByb3RlY3RzLW5vdGhpbmc=';

/** Reads `id:base64,id:base64` (a variable's value or a file's text); the error names the variable, never a key. */
export function parseMasterKeys(
  source: { keys?: string; file?: string; currentId?: string },
  production: boolean,
): MasterKeys | { error: string } {
  let text = source.keys;
  let from = 'DATA_MASTER_KEYS';
  if (text === undefined && source.file !== undefined) {
    from = 'DATA_MASTER_KEYS_FILE';
    try {
      text = readFileSync(source.file, 'utf8');
    } catch {
      return { error: `DATA_MASTER_KEYS_FILE: cannot read ${source.file}` };
    }
  }
  if (text === undefined) {
    if (production) return { error: 'DATA_MASTER_KEYS: required in production (or DATA_MASTER_KEYS_FILE)' };
    text = DEVELOPMENT_KEYS;
  }
  const keys = new Map<string, Buffer>();
  for (const pair of text.split(/[,\s]+/).filter((p) => p !== '')) {
    const at = pair.indexOf(':');
    const id = pair.slice(0, at);
    const key = Buffer.from(pair.slice(at + 1), 'base64');
    if (at < 1 || !/^[A-Za-z0-9_.-]{1,64}$/.test(id))
      return { error: `${from}: each entry must be id:base64 (id of letters, digits, _ . -)` };
    if (key.length !== 32) return { error: `${from}: the key of ${id} must be 32 bytes in base64` };
    if (keys.has(id)) return { error: `${from}: ${id} is listed twice` };
    keys.set(id, key);
  }
  if (keys.size === 0) return { error: `${from}: no key listed` };
  const currentId = source.currentId ?? [...keys.keys()][0];
  if (!keys.has(currentId)) return { error: `DATA_MASTER_KEY_ID: ${currentId} is not listed in ${from}` };
  return { currentId, keys };
}

/** The key store's URL: KEYSTORE_DATABASE_URL, or DATABASE_URL's database with `_keys` appended. */
export function keyStoreUrl(databaseUrl: string, configured: string | undefined): string {
  if (configured !== undefined) return configured;
  const url = new URL(databaseUrl);
  url.pathname = `${url.pathname.replace(/\/$/, '')}_keys`;
  return url.toString();
}
