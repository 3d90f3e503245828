/** Anything that runs a statement with parameters: a pg Client, a TypeORM DataSource. */
export interface SqlRunner {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

/**
 * Accepted leads of one campaign's offer, in bulk (generated in PostgreSQL,
 * no row crosses the wire), as a sold direct post leaves them: the lead
 * accepted with its payout (received `from` + n × `stepMs`, accepted a second
 * later, so just now when the batch ends now), and its accepted sale with the
 * payout and the offer's price. For the statement bench and the statement's
 * tests (docs/returns.md). `payout` is numeric text ("0.10"), null for none.
 */
export async function seedAcceptedLeads(
  db: SqlRunner,
  o: { campaignId: string; offerId: string; count: number; payout: string | null; from: Date; stepMs: number },
): Promise<void> {
  await db.query(
    `INSERT INTO leads (id, kind, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, reason, payout,
                        decided_by, decided_at, created_at, lead_group_id)
     SELECT h.id, 'direct_post', c.affiliate_id, c.id, $2::uuid, k.id, '{}', '192.0.2.2', 'accepted', 'ACCEPTED', 'Lead accepted', $4::numeric,
            'buyer', h.at + interval '1 second', h.at, h.id
       FROM campaigns c
       JOIN LATERAL (SELECT id FROM api_keys WHERE affiliate_id = c.affiliate_id ORDER BY created_at LIMIT 1) k ON true
      CROSS JOIN LATERAL (SELECT gen_random_uuid() AS id, $5::timestamptz + n * $6::int * interval '1 millisecond' AS at
                            FROM generate_series(0, $3::int - 1) AS n) h
      WHERE c.id = $1`,
    [o.campaignId, o.offerId, o.count, o.payout, o.from, o.stepMs],
  );
  await db.query(
    `INSERT INTO sales (lead_id, lead_group_id, offer_id, school_id, campaign_id, affiliate_id, offer_type, payout, price, status, created_at, updated_at)
     SELECT l.id, l.id, l.offer_id, f.school_id, l.campaign_id, l.affiliate_id, f.offer_type, l.payout, f.price, 'accepted', l.created_at, l.decided_at
       FROM leads l JOIN offers f ON f.id = l.offer_id
      WHERE l.campaign_id = $1 AND l.offer_id = $2 AND l.consumer_ip = '192.0.2.2'
        AND NOT EXISTS (SELECT 1 FROM sales s WHERE s.lead_id = l.id)`,
    [o.campaignId, o.offerId],
  );
}
