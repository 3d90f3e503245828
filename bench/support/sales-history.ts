import { Client } from 'pg';

/**
 * A running system's past, before a bench measures it: sold leads of other
 * people on the campaign's own offers, with their sales and dedupe keys (three per
 * person, as a lead with email, phone and name/zip/birth date has), spread
 * over the last 90 days, then ANALYZE, as autovacuum would have run on a live
 * database, and a CHECKPOINT. Without it the bench starts on an empty dedupe index that grows
 * during the measurement on a database never analyzed (this machine runs
 * PostgreSQL with autovacuum off for the tests): prepared statements then keep
 * the plan they got on the first, empty table (a sequential scan) while it
 * grows, which no production database does (bench/results/performance-history.md).
 * The bench's own people never match: their keys hash other values.
 */
export async function seedSalesHistory(
  databaseUrl: string,
  campaignId: string,
  people: number,
): Promise<{ leads: number; keys: number; ms: number }> {
  const started = Date.now();
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    await pg.query('BEGIN');
    const leads = await pg.query(
      `INSERT INTO leads (id, kind, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, reason, payout,
                          decided_by, decided_at, created_at, lead_group_id)
       SELECT h.id, 'direct_post', c.affiliate_id, c.id, o.ids[1 + h.n % cardinality(o.ids)], k.id,
              jsonb_build_object('personal', jsonb_build_object('email', 'history' || h.n || '@example.com')), '192.0.2.1',
              'accepted', 'ACCEPTED', 'Lead accepted', 20, 'buyer', h.at, h.at, h.id
         FROM campaigns c
         JOIN LATERAL (SELECT id FROM api_keys WHERE affiliate_id = c.affiliate_id ORDER BY created_at LIMIT 1) k ON true
         JOIN LATERAL (SELECT array_agg(co.offer_id ORDER BY co.position) AS ids
                         FROM campaign_offers co JOIN offers f ON f.id = co.offer_id
                        WHERE co.campaign_id = c.id AND f.source = 'own') o ON true
         CROSS JOIN LATERAL (SELECT n, gen_random_uuid() AS id, now() - (n % 90) * interval '1 day' - (n % 86400) * interval '1 second' AS at
                               FROM generate_series(1, $2::int) AS n) h
        WHERE c.id = $1`,
      [campaignId, people],
    );
    await pg.query(
      `INSERT INTO sales (lead_id, lead_group_id, offer_id, school_id, campaign_id, affiliate_id, offer_type, payout, price, status, created_at, updated_at)
       SELECT l.id, l.id, l.offer_id, f.school_id, l.campaign_id, l.affiliate_id, f.offer_type, l.payout, f.price, 'accepted', l.created_at, l.created_at
         FROM leads l JOIN offers f ON f.id = l.offer_id
        WHERE l.campaign_id = $1 AND l.kind = 'direct_post' AND l.consumer_ip = '192.0.2.1'`,
      [campaignId],
    );
    const keys = await pg.query(
      `INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at)
       SELECT l.id, t.key_type, encode(sha256(convert_to(t.key_type || ':history:' || l.id, 'UTF8')), 'hex'), l.offer_id, f.school_id, l.affiliate_id, l.created_at
         FROM leads l JOIN offers f ON f.id = l.offer_id
        CROSS JOIN (VALUES ('email'), ('phone'), ('name_zip_dob')) AS t(key_type)
        WHERE l.campaign_id = $1 AND l.kind = 'direct_post' AND l.consumer_ip = '192.0.2.1'`,
      [campaignId],
    );
    await pg.query('COMMIT');
    await pg.query('ANALYZE');
    // The bulk's dirty pages written now: left to the checkpointer, they would be written during the first measured
    // phases and counted in that side's machine CPU (as generate-history.ts does for its bulk).
    await pg.query('CHECKPOINT');
    return { leads: leads.rowCount ?? 0, keys: keys.rowCount ?? 0, ms: Date.now() - started };
  } finally {
    await pg.end();
  }
}

/** ANALYZE, as autovacuum would after a bulk of new rows (the benches' prepared searches). */
export async function analyze(databaseUrl: string): Promise<void> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    await pg.query('ANALYZE');
  } finally {
    await pg.end();
  }
}
