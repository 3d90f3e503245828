import { DataSource } from 'typeorm';
import { REVERSIBLE_SOURCES, type OptOutKey, type OptOutKeyType, type OptOutRecord, type OptOutSource } from '@lr/domain';
import { locksOn } from '../queries/advisory-locks';
import type { RowTypes } from '../queries/row-types.generated';
import { filled, inTransaction, poolOf, run, statement, type WithDocuments } from '../queries/sql';

/**
 * Opt-outs, suppressions and revocation notices (docs/opt-outs.md). The
 * searches' and submits' check reads `suppressions` inside the sale facts
 * (SUPPRESSED, embedded there); everything else is here.
 */

/**
 * One notice per lead of `sold`, a relation of (opt_out_id, lead_id,
 * offer_id, school_id, due_at) of accepted sales, to its buyer: a partner
 * offer's is its partner network, an own offer's its school. One per lead
 * whoever wrote it first (ux_revocation_notices_lead_id), so a second opt-out
 * of the same person, concurrent or later, adds none; except that a notice
 * cancelled by a reversal before its buyer acknowledged it is taken back
 * (same id, the new request's deadline, queued again): the buyer was never
 * told, and now must be.
 */
const INSERT_NOTICES = (sold: string) =>
  `INSERT INTO revocation_notices (id, opt_out_id, lead_id, offer_id, buyer_kind, buyer_id, due_at)
   SELECT gen_random_uuid(), x.opt_out_id, x.lead_id, x.offer_id,
          CASE WHEN o.source = 'partner' THEN 'partner' ELSE 'school' END, COALESCE(o.partner_id, x.school_id), x.due_at
     FROM (${sold}) AS x JOIN offers o ON o.id = x.offer_id
   ON CONFLICT (lead_id) DO UPDATE SET opt_out_id = EXCLUDED.opt_out_id, due_at = EXCLUDED.due_at, cancelled_at = NULL, queued_at = NULL
    WHERE revocation_notices.cancelled_at IS NOT NULL AND revocation_notices.acknowledged_at IS NULL
   RETURNING id`;

/**
 * The accepted sales of the person's keys (a relation of key_type, key_hash),
 * found through the dedupe index, which holds every live sale's keys for as
 * long as the lead is kept; with `extra` columns (opt_out_id, due_at).
 */
const SOLD_TO = (keys: string, extra: string) =>
  `SELECT DISTINCT ON (s.lead_id) s.lead_id, s.offer_id, s.school_id, ${extra}
     FROM (${keys}) AS k(key_type, key_hash)
     JOIN dedupe_keys d ON d.key_type = k.key_type AND d.key_hash = k.key_hash::char(64)
     JOIN sales s ON s.lead_id = d.lead_id AND s.status = 'accepted'`;

/** An opt-out in one statement: the request, its suppressions (a key already suppressed stays with its first request), their audit, the notices. */
const RECORD = statement(
  'recordOptOut',
  `
  WITH request AS (
    INSERT INTO opt_outs (id, received_at, due_at, source, affiliate_id, api_key_id, reference, relay, email_key, phone_key)
    VALUES ($1, $2, $10, $3, $4, $5, $6, $11,
            (SELECT h FROM unnest($7::text[], $8::char(64)[]) AS k(t, h) WHERE t = 'email'),
            (SELECT h FROM unnest($7::text[], $8::char(64)[]) AS k(t, h) WHERE t = 'phone'))
    RETURNING id
  ), suppressed AS (
    INSERT INTO suppressions (key_type, key_hash, opt_out_id)
    SELECT k.key_type, k.key_hash, $1 FROM unnest($7::text[], $8::char(64)[]) AS k(key_type, key_hash)
    ON CONFLICT (key_type, key_hash) DO NOTHING
    RETURNING key_type, key_hash
  ), audited AS (
    INSERT INTO suppression_audit (action, key_type, key_hash, opt_out_id, actor)
    SELECT 'suppress', key_type, key_hash, $1, $9 FROM suppressed
  ), notices AS (${INSERT_NOTICES(SOLD_TO('SELECT * FROM unnest($7::text[], $8::char(64)[])', '$1::uuid AS opt_out_id, $10::timestamptz AS due_at'))})
  SELECT (SELECT count(*) FROM request)::int AS recorded, (SELECT count(*) FROM suppressed)::int AS suppressed, (SELECT count(*) FROM notices)::int AS notices`,
);

/**
 * Leads accepted after their person was suppressed (a sale reserved just
 * before the opt-out and accepted after it): their notices, under the
 * suppression's request. Only suppressions of the last day are looked at: a
 * reservation is never older than that. The requests are share-locked: a
 * reversal under way is waited for, and its request then left out.
 */
const LATE_NOTICES = statement(
  'lateNotices',
  `
  WITH recent AS (
    SELECT sp.key_type, sp.key_hash, sp.opt_out_id, o.due_at FROM suppressions sp JOIN opt_outs o ON o.id = sp.opt_out_id
     WHERE sp.suppressed_at > now() - interval '1 day' AND o.relay = $1 AND o.reversed_at IS NULL
       FOR SHARE OF o
  )
  ${INSERT_NOTICES(`${SOLD_TO('SELECT key_type, key_hash FROM recent', 'r.opt_out_id, r.due_at')}
      JOIN recent r ON r.key_type = k.key_type AND r.key_hash = k.key_hash
     WHERE NOT EXISTS (SELECT 1 FROM revocation_notices n WHERE n.lead_id = s.lead_id)`)}`,
);

/** Notices whose sender died mid-send (its hold lapsed, nothing booked): queued again. */
const ABANDONED = statement(
  'abandonedNotices',
  `
  UPDATE revocation_notices n SET sending_until = NULL, queued_at = NULL
   WHERE n.acknowledged_at IS NULL AND n.cancelled_at IS NULL AND n.sending_until < now()
     AND EXISTS (SELECT 1 FROM opt_outs o WHERE o.id = n.opt_out_id AND o.relay = $1)
  RETURNING n.id`,
);

const UNQUEUED = statement(
  'unqueuedNotices',
  `
  SELECT n.id FROM revocation_notices n JOIN opt_outs o ON o.id = n.opt_out_id
   WHERE n.queued_at IS NULL AND n.cancelled_at IS NULL AND o.relay = $2
   ORDER BY n.created_at LIMIT $1`,
);
const MARK_QUEUED = statement(
  'markNoticesQueued',
  `UPDATE revocation_notices SET queued_at = now() WHERE id = ANY($1::uuid[]) AND queued_at IS NULL`,
);

/**
 * Claims a notice for one send: not acknowledged, not cancelled (its opt-out
 * reversed), and nobody else sending it (`sending_until` passed: a sender
 * killed mid-send gives it up then). The claim and a reversal's cancel both
 * update the notice's row, so one waits for the other: a notice cancelled
 * first is never sent; one claimed first is sent once, and never again.
 */
const CLAIM = statement(
  'claimNotice',
  `
  WITH claimed AS (
    UPDATE revocation_notices SET attempts = attempts + 1, sending_until = now() + make_interval(secs => $2::double precision / 1000)
     WHERE id = $1 AND acknowledged_at IS NULL AND cancelled_at IS NULL AND (sending_until IS NULL OR sending_until < now())
    RETURNING id, opt_out_id, lead_id, offer_id, buyer_kind, buyer_id, due_at, attempts
  )
  SELECT 'claimed' AS state, c.id, c.lead_id, c.offer_id, c.buyer_kind, c.buyer_id, c.due_at, c.attempts, r.received_at,
         o.delivery, p.adapter AS partner_adapter, p.base_url AS partner_base_url, p.settings AS partner_settings
    FROM claimed c JOIN opt_outs r ON r.id = c.opt_out_id JOIN offers o ON o.id = c.offer_id LEFT JOIN partners p ON p.id = o.partner_id
  UNION ALL
  SELECT CASE WHEN n.acknowledged_at IS NOT NULL THEN 'acknowledged' WHEN n.cancelled_at IS NOT NULL THEN 'cancelled' ELSE 'busy' END, n.id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM revocation_notices n WHERE n.id = $1 AND NOT EXISTS (SELECT 1 FROM claimed)`,
);

const ACKNOWLEDGE = statement(
  'acknowledgeNotice',
  `
  UPDATE revocation_notices SET acknowledged_at = COALESCE(acknowledged_at, now()), receipt = COALESCE(receipt, $2::jsonb), sending_until = NULL, last_error = NULL
   WHERE id = $1 RETURNING acknowledged_at`,
);
const FAILED = statement(
  'noticeFailed',
  `UPDATE revocation_notices SET last_error = $2, sending_until = NULL WHERE id = $1 AND acknowledged_at IS NULL`,
);

const OPEN_NOTICES = statement(
  'openNotices',
  `
  SELECT n.id, n.lead_id, n.offer_id, n.buyer_kind, n.buyer_id, COALESCE(sc.name, pa.name) AS buyer_name, r.received_at, n.due_at,
         n.queued_at, n.attempts, n.last_error, n.acknowledged_at, n.opt_out_id, r.source, r.affiliate_id, r.api_key_id
    FROM revocation_notices n
    JOIN opt_outs r ON r.id = n.opt_out_id
    LEFT JOIN schools sc ON n.buyer_kind = 'school' AND sc.id = n.buyer_id
    LEFT JOIN partners pa ON n.buyer_kind = 'partner' AND pa.id = n.buyer_id
   WHERE n.acknowledged_at IS NULL AND n.cancelled_at IS NULL AND ($1::timestamptz IS NULL OR n.due_at < $1)
   ORDER BY n.due_at, n.id
   LIMIT $2`,
);

const COUNTS = statement(
  'noticeCounts',
  `
  SELECT (SELECT count(*) FROM revocation_notices WHERE acknowledged_at IS NULL AND cancelled_at IS NULL)::int AS open,
         (SELECT count(*) FROM revocation_notices WHERE acknowledged_at IS NULL AND cancelled_at IS NULL AND due_at < now())::int AS overdue,
         (SELECT COALESCE(json_object_agg(source, n), '{}') FROM (SELECT source, count(*)::int AS n FROM opt_outs WHERE recorded_at > now() - interval '1 day' GROUP BY source) x) AS recorded_last_day`,
);

const LIFT = statement(
  'liftSuppressions',
  `
  WITH lifted AS (
    DELETE FROM suppressions sp USING unnest($1::text[], $2::char(64)[]) AS k(key_type, key_hash)
     WHERE sp.key_type = k.key_type AND sp.key_hash = k.key_hash
    RETURNING sp.key_type, sp.key_hash, sp.opt_out_id
  ), audited AS (
    INSERT INTO suppression_audit (action, key_type, key_hash, opt_out_id, actor, reason)
    SELECT 'lift', key_type, key_hash, opt_out_id, $3, $4 FROM lifted
  )
  SELECT key_type FROM lifted`,
);

/**
 * Advisory locks on a person's suppression keys: recording and reversing
 * opt-outs of one person take turns, so a reversal never misses an opt-out
 * recorded meanwhile (which then keeps the suppression and the notices).
 */
const LOCK_NAME = (type: string, hash: string) => `'opt-out:' || ${type} || ':' || ${hash}`;
const RECORD_LOCKS = statement(
  'optOutLocks',
  locksOn(`ARRAY(SELECT ${LOCK_NAME('k.t', 'k.h')} FROM unnest($1::text[], $2::text[]) AS k(t, h))`),
);
const REVERSAL_LOCKS = statement(
  'optOutReversalLocks',
  locksOn(`ARRAY(SELECT ${LOCK_NAME('k.t', 'k.h')} FROM opt_outs o
                  CROSS JOIN LATERAL (VALUES ('email', o.email_key::text), ('phone', o.phone_key::text)) AS k(t, h)
                 WHERE o.id = ANY($1::uuid[]) AND k.h IS NOT NULL)`),
);

/** The opt-outs' columns as `optout list` shows them, with their notices' state. */
const OPT_OUT_ROWS = (where: string) =>
  `SELECT o.id, o.received_at, o.recorded_at, o.source, o.affiliate_id, o.api_key_id, o.reference,
          o.email_key IS NOT NULL AS email, o.phone_key IS NOT NULL AS phone,
          o.reversed_at, o.reversed_by, o.reversal_reason,
          (SELECT count(*) FROM suppressions sp WHERE sp.opt_out_id = o.id)::int AS keys_held,
          (SELECT count(*) FROM revocation_notices n WHERE n.opt_out_id = o.id AND n.acknowledged_at IS NOT NULL)::int AS notices_sent,
          (SELECT count(*) FROM revocation_notices n WHERE n.opt_out_id = o.id AND n.acknowledged_at IS NULL AND n.cancelled_at IS NULL)::int AS notices_open,
          (SELECT count(*) FROM revocation_notices n WHERE n.opt_out_id = o.id AND n.acknowledged_at IS NULL AND n.cancelled_at IS NOT NULL)::int AS notices_cancelled
     FROM opt_outs o
    WHERE ${where}`;
const BY_KEY = statement(
  'optOutsByKey',
  `${OPT_OUT_ROWS("o.api_key_id = $1 AND o.received_at >= COALESCE($2::timestamptz, '-infinity') AND o.received_at < COALESCE($3::timestamptz, 'infinity')")}
   ORDER BY o.received_at, o.id LIMIT $4`,
);
const BY_IDS = statement('optOutsByIds', `${OPT_OUT_ROWS('o.id = ANY($1::uuid[])')} ORDER BY o.received_at, o.id`);

/** Marks the opt-outs reversed (who, when, why), those not yet reversed and of a reversible source: the ones this reversal owns. */
const MARK_REVERSED = statement(
  'markOptOutsReversed',
  `UPDATE opt_outs SET reversed_at = now(), reversed_by = $2, reversal_reason = $3
    WHERE id = ANY($1::uuid[]) AND reversed_at IS NULL AND source = ANY($4::text[])
   RETURNING id`,
);

/**
 * The suppressions the reversed opt-outs held: each passes to the earliest
 * other opt-out of its key that is not reversed and was recorded after the
 * key was last lifted, or is lifted; both audited with the reversal's actor
 * and reason (libs/domain reversal.ts).
 */
const HAND_OVER_SUPPRESSIONS = statement(
  'handOverSuppressions',
  `
  WITH held AS (
    SELECT sp.key_type, sp.key_hash, sp.opt_out_id FROM suppressions sp WHERE sp.opt_out_id = ANY($1::uuid[]) FOR UPDATE
  ), heir AS (
    SELECT h.key_type, h.key_hash, o.id AS opt_out_id
      FROM held h CROSS JOIN LATERAL (
        SELECT o.id FROM opt_outs o
         WHERE o.reversed_at IS NULL
           AND ((h.key_type = 'email' AND o.email_key = h.key_hash) OR (h.key_type = 'phone' AND o.phone_key = h.key_hash))
           AND o.recorded_at > COALESCE((SELECT max(a.at) FROM suppression_audit a
                                          WHERE a.action = 'lift' AND a.key_type = h.key_type AND a.key_hash = h.key_hash), '-infinity')
         ORDER BY o.received_at, o.id LIMIT 1) o
  ), moved AS (
    UPDATE suppressions sp SET opt_out_id = e.opt_out_id FROM heir e WHERE sp.key_type = e.key_type AND sp.key_hash = e.key_hash
    RETURNING sp.key_type, sp.key_hash, sp.opt_out_id
  ), lifted AS (
    DELETE FROM suppressions sp USING held h
     WHERE sp.key_type = h.key_type AND sp.key_hash = h.key_hash
       AND NOT EXISTS (SELECT 1 FROM heir e WHERE e.key_type = h.key_type AND e.key_hash = h.key_hash)
    RETURNING sp.key_type, sp.key_hash, sp.opt_out_id
  ), audited AS (
    INSERT INTO suppression_audit (action, key_type, key_hash, opt_out_id, actor, reason)
    SELECT 'lift', key_type, key_hash, opt_out_id, $2, $3 FROM lifted
    UNION ALL
    SELECT 'suppress', key_type, key_hash, opt_out_id, $2, $3 FROM moved
  )
  SELECT (SELECT count(*) FROM lifted)::int AS lifted, (SELECT count(*) FROM moved)::int AS kept`,
);

/**
 * The reversed opt-outs' notices their buyer has not acknowledged: each
 * passes to the opt-out that now suppresses the lead's email or phone (due
 * when its notices are), or is cancelled. Locked first (their latest
 * versions are read): a sender's claim or receipt is waited for, a notice
 * claimed before is counted as under way (it may reach its buyer; it is
 * never sent again), one acknowledged meanwhile as sent.
 */
const SETTLE_NOTICES = statement(
  'settleReversedNotices',
  `
  WITH mine AS (
    SELECT n.id, n.lead_id, n.sending_until, n.acknowledged_at, n.cancelled_at FROM revocation_notices n
     WHERE n.opt_out_id = ANY($1::uuid[])
       FOR UPDATE
  ), open AS (
    SELECT id, lead_id, sending_until FROM mine WHERE acknowledged_at IS NULL AND cancelled_at IS NULL
  ), heir AS (
    SELECT DISTINCT ON (op.id) op.id, o.id AS opt_out_id, o.due_at
      FROM open op
      JOIN dedupe_keys d ON d.lead_id = op.lead_id
      JOIN suppressions sp ON sp.key_type = d.key_type AND sp.key_hash = d.key_hash
      JOIN opt_outs o ON o.id = sp.opt_out_id AND o.reversed_at IS NULL
     ORDER BY op.id, o.received_at, o.id
  ), handed AS (
    UPDATE revocation_notices n SET opt_out_id = e.opt_out_id, due_at = e.due_at FROM heir e WHERE n.id = e.id RETURNING n.id
  ), cancelled AS (
    UPDATE revocation_notices n SET cancelled_at = now() FROM open op
     WHERE n.id = op.id AND NOT EXISTS (SELECT 1 FROM heir e WHERE e.id = op.id)
    RETURNING n.id, COALESCE(op.sending_until > now(), false) AS under_way
  )
  SELECT (SELECT count(*) FROM handed)::int AS handed_over,
         (SELECT count(*) FROM cancelled WHERE NOT under_way)::int AS cancelled,
         (SELECT count(*) FROM cancelled WHERE under_way)::int AS under_way,
         (SELECT count(*) FROM mine WHERE acknowledged_at IS NOT NULL)::int AS already_sent`,
);

/**
 * An opt-out to store (libs/domain optOutRecord): `reference` is the
 * operator's (a ticket, a file and line), never contact data; `actor` names
 * who recorded it for the audit (`affiliate:<uuid>`, `operator`, ...);
 * `dueAt` is kept on the request for notices found later.
 */
export type NewOptOut = OptOutRecord;

export interface RecordedOptOut {
  /** Keys newly suppressed by this request (0 when the person was already suppressed). */
  suppressed: number;
  /** Revocation notices created for buyers that accepted the person's leads. */
  notices: number;
}

/** A notice claimed for sending, with what its buyer's adapter needs. */
export interface ClaimedNotice {
  id: string;
  leadId: string;
  offerId: string;
  buyerKind: 'school' | 'partner';
  buyerId: string;
  receivedAt: Date;
  dueAt: Date;
  attempts: number;
  /** The own offer's delivery settings (a school), or the partner's adapter, base URL and settings. */
  delivery: Record<string, unknown> | null;
  partner: { adapter: string; baseUrl: string; settings: Record<string, unknown> | null } | null;
}

/** Not claimed: acknowledged by its buyer, cancelled by a reversal of its opt-out, held by another sender, or not found. */
export type NoticeClaim = { state: 'claimed'; notice: ClaimedNotice } | { state: 'acknowledged' | 'cancelled' | 'busy' | 'unknown' };

export interface OpenNotice {
  id: string;
  leadId: string;
  offerId: string;
  buyerKind: 'school' | 'partner';
  buyerId: string;
  buyerName: string | null;
  receivedAt: Date;
  dueAt: Date;
  queuedAt: Date | null;
  attempts: number;
  lastError: string | null;
  /** The opt-out it tells of, and who recorded that one (the API key for an affiliate's). */
  optOutId: string;
  source: OptOutSource;
  affiliateId: string | null;
  apiKeyId: string | null;
}

/** An opt-out as `optout list` shows it: who sent it (the API key), its keys' types, its reversal, its notices. */
export interface ListedOptOut {
  id: string;
  receivedAt: Date;
  recordedAt: Date;
  source: OptOutSource;
  affiliateId: string | null;
  apiKeyId: string | null;
  reference: string | null;
  keys: OptOutKeyType[];
  reversal: { at: Date; by: string; reason: string } | null;
  /** Suppression keys this request holds now (0: the person was suppressed before, lifted, or it was reversed). */
  keysHeld: number;
  notices: { sent: number; open: number; cancelled: number };
}

/** What one reversal changed (libs/domain reversal.ts). */
export interface Reversal {
  /** The opt-outs this reversal reversed: not reversed before, and of a reversible source. */
  reversed: string[];
  /** Suppression keys lifted (the person may be sold again on them), and kept by another opt-out not reversed. */
  keysLifted: number;
  keysKept: number;
  notices: {
    /** Cancelled before any send: never sent. */
    cancelled: number;
    /** Cancelled while a send was under way: it may reach its buyer, and is never sent again. */
    underWay: number;
    /** Passed to the opt-out that still suppresses the person. */
    handedOver: number;
    /** Acknowledged before: left as they are. */
    alreadySent: number;
  };
}

export class OptOuts {
  constructor(private readonly db: DataSource) {}

  /**
   * Stores an opt-out, under the person's keys' locks (a reversal of the
   * same person waits, or is waited for): from its commit on, searches and
   * submits of the person are suppressed, and its notices wait in the outbox.
   */
  async record(o: NewOptOut): Promise<RecordedOptOut> {
    const types = o.keys.map((k) => k.type);
    const hashes = o.keys.map((k) => k.hash);
    const [r] = await inTransaction(poolOf(this.db), async (tx) => {
      await tx.begin(await tx.execute(RECORD_LOCKS, [types, hashes]));
      return tx.commitBound(RECORD, [
        o.id,
        o.receivedAt,
        o.source,
        o.affiliateId,
        o.apiKeyId,
        o.reference,
        types,
        hashes,
        o.actor,
        o.dueAt,
        o.relay,
      ]);
    });
    return { suppressed: r.suppressed ?? 0, notices: r.notices ?? 0 };
  }

  /** An API key's opt-outs received in [since, until), oldest first. */
  async byKey(apiKeyId: string, since: Date | null, until: Date | null, limit: number): Promise<ListedOptOut[]> {
    return (await run(this.db, BY_KEY, [apiKeyId, since, until, limit])).map(listedOptOutOf);
  }

  /** These opt-outs (those that exist), oldest first. */
  async byIds(ids: readonly string[]): Promise<ListedOptOut[]> {
    return (await run(this.db, BY_IDS, [ids])).map(listedOptOutOf);
  }

  /**
   * Reverses these opt-outs in one transaction, under their keys' locks
   * (libs/domain reversal.ts): each not reversed before and of a reversible
   * source is marked reversed by `actor` for `reason`, its suppressions pass
   * to another opt-out that still holds them or are lifted (audited), and
   * its notices not acknowledged pass to that opt-out or are cancelled.
   * Idempotent: an opt-out reversed before (or concurrently) is left alone.
   */
  async reverse(ids: readonly string[], actor: string, reason: string): Promise<Reversal> {
    return inTransaction(poolOf(this.db), async (tx) => {
      await tx.begin(await tx.execute(REVERSAL_LOCKS, [ids]));
      const reversed = (await run(tx.client, MARK_REVERSED, [ids, actor, reason, REVERSIBLE_SOURCES])).map((r) => r.id);
      const [keys] = await run(tx.client, HAND_OVER_SUPPRESSIONS, [reversed, actor, reason]);
      const [notices] = await run(tx.client, SETTLE_NOTICES, [reversed]);
      await tx.commit();
      return {
        reversed,
        keysLifted: keys.lifted ?? 0,
        keysKept: keys.kept ?? 0,
        notices: {
          cancelled: notices.cancelled ?? 0,
          underWay: notices.under_way ?? 0,
          handedOver: notices.handed_over ?? 0,
          alreadySent: notices.already_sent ?? 0,
        },
      };
    });
  }

  /** Lifts the suppression of the keys (an operator's decision, audited with its reason); answers the key types lifted. */
  async lift(keys: readonly OptOutKey[], actor: string, reason: string): Promise<string[]> {
    return (await run(this.db, LIFT, [keys.map((k) => k.type), keys.map((k) => k.hash), actor, reason])).map((r) => r.key_type);
  }

  /** Notices for leads accepted after their person's suppression by an opt-out `relay` relays, due when its request's are. */
  async addLateNotices(relay: string): Promise<number> {
    return (await run(this.db, LATE_NOTICES, [relay])).length;
  }

  /** Notices of `relay`'s opt-outs a dead sender held: queued again (answers how many). */
  async requeueAbandoned(relay: string): Promise<number> {
    return (await run(this.db, ABANDONED, [relay])).length;
  }

  /** Notices of `relay`'s opt-outs not yet handed to RabbitMQ, oldest first. */
  async unqueued(limit: number, relay: string): Promise<string[]> {
    return (await run(this.db, UNQUEUED, [limit, relay])).map((r) => r.id);
  }

  async markQueued(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await run(this.db, MARK_QUEUED, [ids]);
  }

  /** Claims a notice for a send of at most `holdMs`. */
  async claim(id: string, holdMs: number): Promise<NoticeClaim> {
    const [r] = (await run(this.db, CLAIM, [id, holdMs])) as Array<
      WithDocuments<'claimNotice', { delivery: Record<string, unknown> | null; partner_settings: Record<string, unknown> | null }>
    >;
    if (!r) return { state: 'unknown' };
    if (r.state === 'acknowledged' || r.state === 'cancelled' || r.state === 'busy') return { state: r.state };
    // The claimed branch of the UNION: its columns are the claimed notice's (PostgreSQL describes a UNION's as nullable).
    return {
      state: 'claimed',
      notice: {
        id: filled(r.id, 'id'),
        leadId: filled(r.lead_id, 'lead_id'),
        offerId: filled(r.offer_id, 'offer_id'),
        buyerKind: r.buyer_kind === 'partner' ? 'partner' : 'school',
        buyerId: filled(r.buyer_id, 'buyer_id'),
        receivedAt: new Date(filled(r.received_at, 'received_at')),
        dueAt: new Date(filled(r.due_at, 'due_at')),
        attempts: filled(r.attempts, 'attempts'),
        delivery: r.delivery,
        partner: r.partner_adapter
          ? { adapter: r.partner_adapter, baseUrl: filled(r.partner_base_url, 'partner_base_url'), settings: r.partner_settings }
          : null,
      },
    };
  }

  /** The buyer's receipt: the notice is acknowledged (a second receipt keeps the first). */
  async acknowledge(id: string, receipt: Record<string, unknown>): Promise<Date | null> {
    const [r] = await run(this.db, ACKNOWLEDGE, [id, receipt]);
    return r ? new Date(filled(r.acknowledged_at, 'acknowledged_at')) : null;
  }

  /** A failed send: its error (our words only) for `optout status`, and the notice free for the next try. */
  async failed(id: string, error: string): Promise<void> {
    await run(this.db, FAILED, [id, error.slice(0, 500)]);
  }

  /** Notices not acknowledged (with `overdueAt`: only those due before it), by due time. */
  async open(overdueAt: Date | null, limit: number): Promise<OpenNotice[]> {
    const rows = await run(this.db, OPEN_NOTICES, [overdueAt, limit]);
    return rows.map((r) => ({
      id: r.id,
      leadId: r.lead_id,
      offerId: r.offer_id,
      buyerKind: r.buyer_kind,
      buyerId: r.buyer_id,
      buyerName: r.buyer_name,
      receivedAt: new Date(r.received_at),
      dueAt: new Date(r.due_at),
      queuedAt: r.queued_at ? new Date(r.queued_at) : null,
      attempts: r.attempts,
      lastError: r.last_error,
      optOutId: r.opt_out_id,
      source: r.source,
      affiliateId: r.affiliate_id,
      apiKeyId: r.api_key_id,
    }));
  }

  /** Open and overdue notices now, and the opt-outs recorded in the last 24 hours by source (the gauges). */
  async counts(): Promise<{ open: number; overdue: number; recordedLastDay: Partial<Record<OptOutSource, number>> }> {
    const [r] = (await run(this.db, COUNTS)) as Array<
      WithDocuments<'noticeCounts', { recorded_last_day: Partial<Record<OptOutSource, number>> | null }>
    >;
    return { open: r.open ?? 0, overdue: r.overdue ?? 0, recordedLastDay: r.recorded_last_day ?? {} };
  }
}

function listedOptOutOf(r: RowTypes['optOutsByKey']): ListedOptOut {
  return {
    id: r.id,
    receivedAt: new Date(r.received_at),
    recordedAt: new Date(r.recorded_at),
    source: r.source,
    affiliateId: r.affiliate_id,
    apiKeyId: r.api_key_id,
    reference: r.reference,
    keys: [...(r.email ? (['email'] as const) : []), ...(r.phone ? (['phone'] as const) : [])],
    reversal: r.reversed_at
      ? { at: new Date(r.reversed_at), by: filled(r.reversed_by, 'reversed_by'), reason: filled(r.reversal_reason, 'reversal_reason') }
      : null,
    keysHeld: r.keys_held ?? 0,
    notices: { sent: r.notices_sent ?? 0, open: r.notices_open ?? 0, cancelled: r.notices_cancelled ?? 0 },
  };
}
