import { setValueAt, valueAt } from './json-path';

/**
 * The body a `field_map` builds from a document (docs/delivery-adapters.md,
 * "field_map"): each target path gets its source's value from the document
 * (strings stay strings, booleans booleans, a whole group an object), or the
 * literal after `=`. A source the document has no value for (no phone, no
 * subid) leaves its target out. Throws MappingConfigError for targets that
 * cannot be built (only in settings the catalog check never saw).
 */
export function mapFields(doc: object, fieldMap: Readonly<Record<string, string>>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [target, source] of Object.entries(fieldMap)) {
    const value = source.startsWith('=') ? source.slice(1) : valueAt(doc, source);
    if (value !== undefined) setValueAt(body, target, value);
  }
  return body;
}
