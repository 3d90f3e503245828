import { CATALOG_KINDS } from './catalog-tables';
import type { ContactAtSearch } from '@lr/domain';
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

/**
 * One line per partner of the file that is sent contact data at search
 * (its catalog `search_fields`), so whoever applies a catalog sees it:
 * `partner "Alpha" (<id>) receives contact data at search: lead.personal.email, …`.
 */
export function formatContactAtSearch(partners: readonly ContactAtSearch[]): string[] {
  return partners.map(
    (p) => `  partner ${JSON.stringify(p.partnerName)} (${p.partnerId}) receives contact data at search: ${p.fields.join(', ')}`,
  );
}
