import type { Queryable } from './queryable';

export interface CampaignRecord {
  id: string;
  affiliateId: string;
  status: 'active' | 'paused';
}

/** The campaign with this id whoever owns it (the caller compares `affiliateId`); null when unknown or not a UUID. */
export async function findCampaignForAffiliate(db: Queryable, campaignId: string): Promise<CampaignRecord | null> {
  if (!isUuid(campaignId)) return null;
  const rows: Array<{ id: string; affiliate_id: string; status: 'active' | 'paused' }> = await db.query(
    'SELECT id, affiliate_id, status FROM campaigns WHERE id = $1',
    [campaignId],
  );
  const row = rows[0];
  return row ? { id: row.id, affiliateId: row.affiliate_id, status: row.status } : null;
}

export interface AffiliateRecord {
  id: string;
  name: string;
  status: 'active' | 'paused';
  /** Whether the duplicate pre-check endpoint is available to the affiliate. */
  dupeCheck: boolean;
}

export async function findAffiliate(db: Queryable, affiliateId: string): Promise<AffiliateRecord | null> {
  if (!isUuid(affiliateId)) return null;
  const rows: Array<{ id: string; name: string; status: 'active' | 'paused'; dupe_check: boolean }> = await db.query(
    'SELECT id, name, status, dupe_check FROM affiliates WHERE id = $1',
    [affiliateId],
  );
  const row = rows[0];
  return row ? { id: row.id, name: row.name, status: row.status, dupeCheck: row.dupe_check } : null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed id would make PostgreSQL raise 22P02; an unknown id is simply not found. */
export function isUuid(v: string): boolean {
  return UUID_RE.test(v);
}
