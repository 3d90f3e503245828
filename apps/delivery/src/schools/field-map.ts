import { setValueAt, valueAt } from './json-path';
import type { LeadDocument } from './lead-document';

/**
 * The school's body from a field_map: each target path gets its source's
 * value from the lead document (strings stay strings, `consent.tcpa_consent`
 * a boolean, a whole group an object), or the literal after `=`. A source
 * the lead has no value for (no phone, no subid) leaves its target out.
 */
export function mapFields(doc: LeadDocument, fieldMap: Readonly<Record<string, string>>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [target, source] of Object.entries(fieldMap)) {
    const value = source.startsWith('=') ? source.slice(1) : valueAt(doc, source);
    if (value !== undefined) setValueAt(body, target, value);
  }
  return body;
}
