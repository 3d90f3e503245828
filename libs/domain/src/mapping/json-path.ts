import { MappingConfigError } from './mapping-errors';

/** Keys that would reach an object's prototype (the catalog check refuses them; settings read from older rows may not have been checked). */
export const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The value at a dotted path (`data.id`, `errors.0.message`): object keys, and
 * array indexes where the value is an array. Undefined when any step is missing.
 */
export function valueAt(root: unknown, path: string): unknown {
  let current: unknown = root;
  for (const key of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (typeof current === 'object' && current !== null && !Array.isArray(current) && Object.hasOwn(current, key)) {
      current = (current as Record<string, unknown>)[key];
    } else return undefined;
  }
  return current;
}

/** Sets `value` at a dotted path of objects, creating them on the way; a target that cannot be built is a MappingConfigError. */
export function setValueAt(root: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let current = root;
  for (const [i, key] of keys.entries()) {
    if (key === '' || UNSAFE_KEYS.has(key)) throw new MappingConfigError(`field_map target ${JSON.stringify(path)} is not a usable path`);
    if (i === keys.length - 1) {
      if (Object.hasOwn(current, key)) throw new MappingConfigError(`field_map target ${JSON.stringify(path)} clashes with another target`);
      current[key] = value;
      return;
    }
    const next = Object.hasOwn(current, key) ? current[key] : (current[key] = {});
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      throw new MappingConfigError(`field_map target ${JSON.stringify(path)} clashes with another target`);
    }
    current = next as Record<string, unknown>;
  }
}
