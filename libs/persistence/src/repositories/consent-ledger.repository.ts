import { CONSENT_RECORD_FORM, CONSENT_RECORD_FORM_1, ChainLink, ConsentRecord, ConsentSeal, StoredLink } from '@lr/domain';
import { DataSource } from 'typeorm';
import { filled, inTransaction, poolOf, run, statement, type WithDocuments } from '../queries/sql';
import type { RowTypes } from '../queries/row-types.generated';

/**
 * The consent ledger (`consent_ledger`, `consent_seals`; docs/consent-ledger.md).
 * A consent event is appended with its evidence (CONSENT_APPEND, in the
 * statement that stores the lead); this repository links the appended records
 * into the chain (one chainer at a time, under an advisory lock), seals the
 * head once a day, and reads the chain back for `consent verify` and
 * `consent export`. The record a digest covers is rebuilt here from the rows
 * that hold it (the evidence, its lead, the ledger row) by one select list,
 * so the chainer, the verifier and the export read the same record. A row
 * chained before person keys were keyed (`record_form` 1) is rebuilt in form
 * 1, with the plain hashes it was chained with; every other row in form 2,
 * with its person keys.
 */

/** The record's columns: the ledger row (g), its evidence (c) and its lead (l), both left-joined (a missing one is named by `consent verify`). */
const RECORD_COLUMNS = `g.seq, g.lead_id, g.position, g.record_hash, g.prev_digest, g.digest, g.school_id, g.record_form, g.form1_email_sha256, g.form1_phone_sha256, g.email_key, g.phone_key,
       (c.lead_id IS NOT NULL AND l.id IS NOT NULL) AS present, l.kind, l.search_id, l.affiliate_id, l.campaign_id, l.offer_id, l.program_id, l.ip_source,
       c.tcpa_consent, c.tcpa_text, c.button_label, c.ip, c.consented_at, c.form_cert_url, c.universal_lead_cert`;
const RECORD_FROM = `consent_ledger g LEFT JOIN consent_evidence c ON c.lead_id = g.lead_id LEFT JOIN leads l ON l.id = g.lead_id`;

/** The record's columns as RECORD_COLUMNS reads them: the evidence's and the lead's are null when either is missing (`present` false). */
type RecordColumns = RowTypes['consentUnchained'];

/** One transaction-level advisory lock serialises the chainers (checks' replicas and `ops consent chain`): no forks. */
const CHAIN_LOCK = statement(
  'consentChainLock',
  `SELECT pg_try_advisory_xact_lock(hashtextextended('lead-router:consent-chain', 0)) AS locked`,
);

const HEAD = statement(
  'consentHead',
  `SELECT position, digest FROM consent_ledger WHERE position IS NOT NULL ORDER BY position DESC LIMIT 1`,
);

/** Appended, not yet chained, in append order (ix_consent_ledger_unchained); only those whose evidence is there to be chained. */
const UNCHAINED = statement(
  'consentUnchained',
  `SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM} WHERE g.position IS NULL AND c.lead_id IS NOT NULL AND l.id IS NOT NULL ORDER BY g.seq LIMIT $1`,
);

const LINK = statement(
  'consentLink',
  `UPDATE consent_ledger g
          SET position = x.position, record_hash = x.record_hash, prev_digest = x.prev_digest, digest = x.digest, chained_at = now()
         FROM unnest($1::bigint[], $2::bigint[], $3::char(64)[], $4::char(64)[], $5::char(64)[]) AS x(seq, position, record_hash, prev_digest, digest)
        WHERE g.seq = x.seq AND g.position IS NULL`,
);

const LAST_SEAL = statement('consentLastSeal', `SELECT max(day)::text AS day FROM consent_seals`);

/**
 * Seals day $1: the last record chained before the day was over (one writer
 * chains in position order, so chained_at grows with position). Nothing when
 * no record was chained by then or the day is sealed.
 */
const SEAL = statement(
  'consentSeal',
  `INSERT INTO consent_seals (day, count, head_digest)
       SELECT $1::date, position, digest FROM consent_ledger
        WHERE chained_at IS NOT NULL AND chained_at < (($1::date + 1)::timestamp AT TIME ZONE 'UTC') ORDER BY chained_at DESC, position DESC LIMIT 1
       ON CONFLICT (day) DO NOTHING
       RETURNING day::text AS day, count, head_digest, sealed_at`,
);

const SEALS = statement('consentSeals', `SELECT day::text AS day, count, head_digest, sealed_at FROM consent_seals ORDER BY count, day`);

const SUMMARY = statement(
  'consentSummary',
  `SELECT (SELECT max(position) FROM consent_ledger WHERE position IS NOT NULL) AS head,
              (SELECT count(*) FROM consent_ledger WHERE position IS NULL) AS unchained,
              (SELECT min(appended_at) FROM consent_ledger WHERE position IS NULL) AS oldest_unchained`,
);

/** The chained positions of records chained in [$1, $2) (null: open end). */
const WINDOW = statement(
  'consentWindow',
  `SELECT min(position) AS first, max(position) AS last FROM consent_ledger
        WHERE chained_at IS NOT NULL AND chained_at >= COALESCE($1::timestamptz, '-infinity') AND chained_at < COALESCE($2::timestamptz, 'infinity')`,
);

const PAGE = statement(
  'consentPage',
  `SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM} WHERE g.position > $1 AND g.position <= $2 ORDER BY g.position LIMIT $3`,
);

const DIGEST_AT = statement('consentDigestAt', `SELECT digest FROM consent_ledger WHERE position = $1`);

const LEAD_KEYS = statement('consentLeadKeys', `SELECT email_key, phone_key FROM consent_ledger WHERE lead_id = $1`);

/**
 * A person's consent events (by the person keys of their email or phone, or
 * one lead; every row has its keys, form-1 records too), with what the export shows beside the proven record:
 * the catalog's names now and the lead's contact data as stored now (null
 * once erased).
 */
const PERSON_EVENTS = statement(
  'consentPersonEvents',
  `SELECT ${RECORD_COLUMNS},
              (SELECT name FROM schools WHERE id = g.school_id) AS school_name,
              (SELECT name FROM offers WHERE id = l.offer_id) AS offer_name,
              (SELECT name FROM campaigns WHERE id = l.campaign_id) AS campaign_name,
              (SELECT name FROM affiliates WHERE id = l.affiliate_id) AS affiliate_name,
              (SELECT p.label FROM programs p WHERE p.offer_id = l.offer_id AND p.value = l.program_id) AS program_label,
              l.lead -> 'personal' AS personal
         FROM ${RECORD_FROM}
        WHERE g.email_key = $1::char(64) OR g.phone_key = $2::char(64) OR g.lead_id = $3::uuid
        ORDER BY g.seq`,
);

const SEGMENT = statement(
  'consentSegment',
  `SELECT position, record_hash, digest FROM consent_ledger WHERE position >= $1 AND position <= $2 ORDER BY position`,
);

/** What `consent export` shows beside a record: names as the catalog has them now, contact data as stored now. */
export interface ConsentEventContext {
  schoolName: string | null;
  offerName: string | null;
  campaignName: string | null;
  affiliateName: string | null;
  programLabel: string | null;
  personal: Record<string, string> | null;
}

/** A consent event of a person, chained or not yet. */
export interface ConsentEvent {
  seq: number;
  leadId: string;
  /** Null until the chainer linked it. */
  link: { position: number; recordHash: string; prevDigest: string; digest: string } | null;
  /** The record at its position (null when not chained yet or its evidence is gone). */
  record: ConsentRecord | null;
  context: ConsentEventContext;
}

/** The person keys of an email and a phone (libs/domain contactKeys); null: none. */
export interface ContactKeys {
  emailKey: string | null;
  phoneKey: string | null;
}

/** A line of the chain: position, record hash, digest. */
export interface ChainLine {
  position: number;
  recordHash: string;
  digest: string;
}

export interface ChainSummary {
  /** Records chained: the head's position (0 when empty). */
  head: number;
  unchained: number;
  oldestUnchained: Date | null;
}

export type ChainRun = { kind: 'busy' } | { kind: 'chained'; linked: number; head: number; sealed: ConsentSeal | null };

export class ConsentLedger {
  constructor(private readonly ds: DataSource) {}

  /**
   * Links the appended records into the chain, in append order, `batch` per
   * transaction, then seals yesterday (UTC) if it is not sealed yet. Only one
   * chainer works at a time (a transaction advisory lock; another answers
   * `busy` at once). `link` (libs/domain linkRecords) computes the digests.
   */
  async chain(
    link: (
      head: { position: number; digest: string } | null,
      pending: ReadonlyArray<{ seq: number; record: (position: number) => ConsentRecord }>,
    ) => ChainLink[],
    opts: { sealDay: (lastSealDay: string | null) => string | null; batch?: number },
  ): Promise<ChainRun> {
    const batch = opts.batch ?? 1000;
    let linked = 0;
    let head = 0;
    for (;;) {
      const step = await inTransaction(poolOf(this.ds), async (tx) => {
        const [lock] = await tx.begin(await tx.execute(CHAIN_LOCK, []));
        if (lock.locked !== true) return { kind: 'busy' as const };
        const [head] = await run(tx.client, HEAD);
        const rows = await run(tx.client, UNCHAINED, [batch]);
        const links = link(
          head ? { position: Number(head.position), digest: filled(head.digest, 'digest') } : null,
          rows.map((r) => ({ seq: Number(r.seq), record: (position: number) => recordOf(r, position) })),
        );
        if (links.length > 0) {
          await run(tx.client, LINK, [
            links.map((l) => l.seq),
            links.map((l) => l.position),
            links.map((l) => l.recordHash),
            links.map((l) => l.prevDigest),
            links.map((l) => l.digest),
          ]);
        }
        let sealed: ConsentSeal | null = null;
        if (rows.length < batch) {
          const [last] = await run(tx.client, LAST_SEAL);
          const day = opts.sealDay(last.day);
          if (day) {
            const [s] = await run(tx.client, SEAL, [day]);
            sealed = s ? sealOf(s) : null;
          }
        }
        const newHead = links.length > 0 ? links[links.length - 1].position : head ? Number(head.position) : 0;
        return { kind: 'step' as const, linked: links.length, more: rows.length === batch, head: newHead, sealed };
      });
      // Another chainer took over between two batches: it links the rest.
      if (step.kind === 'busy') return linked > 0 ? { kind: 'chained', linked, head, sealed: null } : step;
      linked += step.linked;
      head = step.head;
      if (!step.more) return { kind: 'chained', linked, head: step.head, sealed: step.sealed };
    }
  }

  async summary(): Promise<ChainSummary> {
    const [r] = await run(this.ds, SUMMARY);
    return { head: Number(r.head ?? 0), unchained: Number(r.unchained ?? 0), oldestUnchained: r.oldest_unchained };
  }

  /** The first and last positions chained in [from, to) (null: none). */
  async window(from: Date | null, to: Date | null): Promise<{ first: number; last: number } | null> {
    const [r] = await run(this.ds, WINDOW, [from, to]);
    return r.first === null || r.last === null ? null : { first: Number(r.first), last: Number(r.last) };
  }

  /** The stored links at positions (after, upTo], at most `limit`, in position order, each with its record rebuilt. */
  async links(after: number, upTo: number, limit: number): Promise<StoredLink[]> {
    const rows = await run(this.ds, PAGE, [after, upTo, limit]);
    return rows.map((r) => {
      const position = Number(r.position);
      return {
        position,
        leadId: r.lead_id,
        recordHash: filled(r.record_hash, 'record_hash'),
        prevDigest: filled(r.prev_digest, 'prev_digest'),
        digest: filled(r.digest, 'digest'),
        record: r.present ? recordOf(r, position) : null,
      };
    });
  }

  /** The digest stored at a position (null: none there). */
  async digestAt(position: number): Promise<string | null> {
    const [r] = await run(this.ds, DIGEST_AT, [position]);
    return r?.digest ?? null;
  }

  async seals(): Promise<ConsentSeal[]> {
    return (await run(this.ds, SEALS)).map(sealOf);
  }

  /** The person keys of the email and phone a lead's consent event holds (null: the lead has no consent event). */
  async leadKeys(leadId: string): Promise<ContactKeys | null> {
    const [r] = await run(this.ds, LEAD_KEYS, [leadId]);
    return r ? { emailKey: r.email_key, phoneKey: r.phone_key } : null;
  }

  /** Every consent event with this email key, this phone key, or of this lead (any may be null), in append order. */
  async personEvents(q: ContactKeys & { leadId: string | null }): Promise<ConsentEvent[]> {
    const rows = (await run(this.ds, PERSON_EVENTS, [q.emailKey, q.phoneKey, q.leadId])) as Array<
      WithDocuments<'consentPersonEvents', { personal: Record<string, string> | null }>
    >;
    return rows.map((r) => {
      const position = r.position === null ? null : Number(r.position);
      return {
        seq: Number(r.seq),
        leadId: r.lead_id,
        link:
          position === null
            ? null
            : {
                position,
                recordHash: filled(r.record_hash, 'record_hash'),
                prevDigest: filled(r.prev_digest, 'prev_digest'),
                digest: filled(r.digest, 'digest'),
              },
        record: position !== null && r.present ? recordOf(r, position) : null,
        context: {
          schoolName: r.school_name,
          offerName: r.offer_name,
          campaignName: r.campaign_name,
          affiliateName: r.affiliate_name,
          programLabel: r.program_label,
          personal: r.personal,
        },
      };
    });
  }

  /** The chain's lines at positions [from, to]. */
  async segment(from: number, to: number): Promise<ChainLine[]> {
    const rows = await run(this.ds, SEGMENT, [from, to]);
    return rows.map((r) => ({
      position: Number(r.position),
      recordHash: filled(r.record_hash, 'record_hash'),
      digest: filled(r.digest, 'digest'),
    }));
  }
}

function sealOf(r: RowTypes['consentSeals']): ConsentSeal {
  return { day: filled(r.day, 'day'), count: Number(r.count), headDigest: r.head_digest, sealedAt: new Date(r.sealed_at).toISOString() };
}

/** The canonical record of a row at a position (libs/domain ConsentRecord): only a present one (its evidence and lead both there). */
function recordOf(r: RecordColumns, position: number): ConsentRecord {
  const facts = {
    position,
    lead_id: r.lead_id,
    kind: filled(r.kind, 'kind'),
    search_id: r.search_id,
    affiliate_id: filled(r.affiliate_id, 'affiliate_id'),
    campaign_id: filled(r.campaign_id, 'campaign_id'),
    offer_id: filled(r.offer_id, 'offer_id'),
    school_id: r.school_id,
    program_id: r.program_id,
    tcpa_consent: filled(r.tcpa_consent, 'tcpa_consent'),
    statement: r.tcpa_text,
    button_label: r.button_label,
    ip: filled(r.ip, 'ip'),
    ip_source: filled(r.ip_source, 'ip_source'),
    consented_at: new Date(filled(r.consented_at, 'consented_at')).toISOString(),
    form_cert_url: r.form_cert_url,
    universal_lead_cert: r.universal_lead_cert,
  };
  return r.record_form === 1
    ? { form: CONSENT_RECORD_FORM_1, ...facts, email_sha256: r.form1_email_sha256, phone_sha256: r.form1_phone_sha256 }
    : { form: CONSENT_RECORD_FORM, ...facts, email_key: r.email_key, phone_key: r.phone_key };
}
