import type { TableSpec } from './sync-rows';

/** The catalog's tables as `catalog apply` writes them (column names as in the migration). */
export const TABLES = {
  affiliates: { table: 'affiliates', match: ['id'], primaryKey: ['id'], columns: ['name', 'status', 'dupe_check'] },
  schools: { table: 'schools', match: ['id'], primaryKey: ['id'], columns: ['name', 'logo_url'] },
  partners: {
    table: 'partners',
    match: ['id'],
    primaryKey: ['id'],
    columns: ['name', 'adapter', 'base_url', 'timeout_ms', 'settings'],
    json: ['settings'],
  },
  offers: {
    table: 'offers',
    match: ['id'],
    primaryKey: ['id'],
    columns: [
      'name',
      'school_id',
      'source',
      'partner_id',
      'external_id',
      'offer_type',
      'status',
      'priority',
      'price',
      'tcpa_text',
      'result_ttl_seconds',
      'duplicate_window_days',
      'eligibility',
      'delivery',
      'returns',
    ],
    json: ['eligibility', 'delivery', 'returns'],
    money: ['price'],
  },
  programs: {
    table: 'programs',
    match: ['offer_id', 'value'],
    primaryKey: ['offer_id', 'value'],
    columns: ['label', 'eligibility', 'position'],
    json: ['eligibility'],
  },
  questions: {
    table: 'questions',
    match: ['offer_id', 'name'],
    primaryKey: ['offer_id', 'name'],
    columns: ['label', 'type', 'required', 'required_when', 'options', 'position'],
    json: ['required_when', 'options'],
  },
  caps: { table: 'caps', match: ['period'], primaryKey: ['id'], columns: ['limit', 'timezone'] },
  campaigns: { table: 'campaigns', match: ['id'], primaryKey: ['id'], columns: ['affiliate_id', 'name', 'status'] },
  campaign_offers: {
    table: 'campaign_offers',
    match: ['campaign_id', 'offer_id'],
    primaryKey: ['campaign_id', 'offer_id'],
    columns: ['payout', 'program_payouts', 'position'],
    json: ['program_payouts'],
    money: ['payout'],
  },
} satisfies Record<string, TableSpec>;

export type CatalogTable = keyof typeof TABLES;

/** Kinds in the order they are written and reported. */
export const CATALOG_KINDS: CatalogTable[] = [
  'affiliates',
  'schools',
  'partners',
  'offers',
  'programs',
  'questions',
  'campaigns',
  'campaign_offers',
  'caps',
];
