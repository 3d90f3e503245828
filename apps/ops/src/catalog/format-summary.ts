import { CATALOG_KINDS } from './catalog-tables';
import type { CatalogSummary } from './apply-catalog';

/** One line per kind: `offers           2 created, 1 updated, 3 unchanged`; child lists also say what was removed. */
export function formatSummary(summary: CatalogSummary): string[] {
  const children = new Set(['programs', 'questions', 'campaign_offers', 'caps']);
  return CATALOG_KINDS.map((kind) => {
    const c = summary[kind];
    const parts = [`${c.created} created`, `${c.updated} updated`, `${c.unchanged} unchanged`];
    if (children.has(kind)) parts.push(`${c.removed} removed`);
    return `  ${kind.padEnd(16)} ${parts.join(', ')}`;
  });
}

export function changedAnything(summary: CatalogSummary): boolean {
  return CATALOG_KINDS.some((k) => summary[k].created + summary[k].updated + summary[k].removed > 0);
}
