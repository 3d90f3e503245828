import { LEAD_GROUPS, Lead, LeadGroup } from '../lead-input';

/** The search's lead with the submit's fields laid over it, field by field (a submit's value replaces the search's). */
export function mergeLead(base: Lead, changes: Lead | null): Lead {
  if (!changes) return base;
  const merged: Lead = {};
  for (const group of Object.keys(LEAD_GROUPS) as LeadGroup[]) {
    const fields = { ...(base[group] ?? {}), ...(changes[group] ?? {}) };
    if (Object.keys(fields).length > 0) (merged as Record<string, unknown>)[group] = fields;
  }
  return merged;
}

/** Whether two leads carry the same values (key order and empty groups do not matter). */
export function sameLead(a: Lead, b: Lead): boolean {
  for (const group of Object.keys(LEAD_GROUPS) as LeadGroup[]) {
    const x = (a[group] ?? {}) as Record<string, string | undefined>;
    const y = (b[group] ?? {}) as Record<string, string | undefined>;
    for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) if (x[key] !== y[key]) return false;
  }
  return true;
}
