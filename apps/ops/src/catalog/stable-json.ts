/** JSON with object keys sorted at every level: equal for values jsonb considers equal. */
export function stableJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) out[key] = sortKeys((v as Record<string, unknown>)[key]);
    return out;
  }
  return v;
}
