import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createDataSource } from '@lr/persistence';
import { capPeriodStart, capScope, leadDedupeKeys, type CapPeriod, type Lead } from '../../../libs/domain/src';
import { applyCatalog } from '../../../apps/ops/src/catalog/apply-catalog';
import { issueApiKey } from '../../../apps/ops/src/keys/api-keys.service';
import { TEST_DATABASE_URL } from '../../support/test-env';
import { appendResults } from '../../support/stored-results';
import { catalogOffer } from '../../support/catalog-builder';
import { TEST_PERSON_KEY_SECRET } from '../../support/person-key';

/** An own offer of the catalog format (CATALOG.md) with a sandbox delivery; `extra` overrides any key. */
export function opsOwnOffer(offerId: string, schoolId: string, name: string, extra: Record<string, unknown> = {}) {
  return catalogOffer(offerId, schoolId, name, {
    source: 'own',
    price: 45,
    tcpa_text: `I agree that ${name} may contact me.`,
    programs: [{ value: 'gen', label: 'General' }],
    delivery: { adapter: 'sandbox', url: 'http://127.0.0.1:4100/schools/ops-tests/leads', timeout_ms: 5000 },
    ...extra,
  });
}

/**
 * Traffic for the operator reports, written into the real schema with the
 * columns and values the services write (search-orchestrator's search and
 * results, delivery's lead, consent, sale, cap slot, dedupe keys and delivery
 * attempt; see apps/*), at chosen times so windows can be tested to the
 * millisecond. The catalog and the API keys go through the CLI's own code.
 */
export class LeadActivitySeed {
  constructor(readonly ds: DataSource) {}

  /** A seed on its own connection to the test database (destroy `ds` after the tests). */
  static async open(): Promise<LeadActivitySeed> {
    const ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 2, timeoutMs: 5000 });
    await ds.initialize();
    return new LeadActivitySeed(ds);
  }

  async catalog(catalog: unknown): Promise<void> {
    const outcome = await applyCatalog(this.ds, catalog);
    if (!outcome.ok) throw new Error(`catalog refused: ${JSON.stringify(outcome.issues)}`);
  }

  async apiKey(affiliateId: string): Promise<string> {
    return (await issueApiKey(this.ds, { affiliateId })).id;
  }

  /**
   * A search as search-orchestrator stores it: the search with its lead and
   * `offer_decisions` (every offer of the campaign), and one result per shown
   * offer, best first in `result_order`.
   */
  async search(s: {
    affiliateId: string;
    campaignId: string;
    apiKeyId: string;
    at: string;
    lead: Lead;
    shown: Array<{
      offerId: string;
      payout?: number;
      programs?: Array<{ value: string; label: string; payout?: number }>;
      partner?: boolean;
    }>;
    notShown?: Array<{ offerId: string; reason: string; detail?: string; partner?: string }>;
    isTest?: boolean;
    tracking?: Record<string, string>;
    tcpaConsent?: boolean | null;
    formCertUrl?: string | null;
    universalLeadCert?: string | null;
  }): Promise<{ searchId: string; resultIds: Map<string, string> }> {
    const searchId = randomUUID();
    const createdAt = new Date(s.at);
    const resultIds = new Map(s.shown.map((o) => [o.offerId, randomUUID()]));
    const decisions: Record<string, unknown> = {};
    for (const o of s.shown) decisions[o.offerId] = { shown: true, result_id: resultIds.get(o.offerId) };
    for (const o of s.notShown ?? []) {
      decisions[o.offerId] = {
        shown: false,
        reason: o.reason,
        ...(o.detail ? { detail: o.detail } : {}),
        ...(o.partner ? { partner: o.partner } : {}),
      };
    }
    await this.ds.query(
      `INSERT INTO searches (id, part_day, affiliate_id, campaign_id, api_key_id, is_test, lead, tracking, consumer_ip, ip_source,
                             tcpa_consent, form_cert_url, universal_lead_cert, created_at, closes_at, processing_done_at,
                             state_version, offer_decisions)
       VALUES ($1, lr_id_day($1), $2, $3, $4, $5, $6, $7, '73.12.44.10', 'consumer', $8, $9, $10, $11, $12, $11, 1, $13)`,
      [
        searchId,
        s.affiliateId,
        s.campaignId,
        s.apiKeyId,
        s.isTest ?? false,
        JSON.stringify(s.lead),
        JSON.stringify(s.tracking ?? { ip_address: '73.12.44.10' }),
        s.tcpaConsent ?? null,
        s.formCertUrl ?? null,
        s.universalLeadCert ?? null,
        createdAt,
        new Date(createdAt.getTime() + 45_000),
        JSON.stringify(decisions),
      ],
    );
    const offers: Array<{
      id: string;
      name: string;
      offer_type: string;
      tcpa_text: string | null;
      school: string;
      logo_url: string | null;
    }> = await this.ds.query(
      `SELECT o.id, o.name, o.offer_type, o.tcpa_text, sc.name AS school, sc.logo_url
           FROM offers o JOIN schools sc ON sc.id = o.school_id WHERE o.id = ANY($1::uuid[])`,
      [s.shown.map((o) => o.offerId)],
    );
    await appendResults(
      this.ds,
      searchId,
      s.shown.map((o) => {
        const offer = offers.find((x) => x.id === o.offerId)!;
        const id = resultIds.get(o.offerId)!;
        return {
          id,
          offerId: o.offerId,
          entry: {
            campaign_id: s.campaignId,
            offer: {
              id: o.offerId,
              name: offer.name,
              offer_type: offer.offer_type,
              is_exclusive: offer.offer_type !== 'shared',
              tcpa_text: offer.tcpa_text,
            },
            school: { name: offer.school, logo_url: offer.logo_url },
            programs: o.programs ?? [],
            ...(o.payout !== undefined ? { payout: o.payout } : {}),
            form_fields: [],
          },
          partnerData: o.partner ? { partner_result_id: `p-${id.slice(0, 8)}` } : null,
          expiresAt: new Date(createdAt.getTime() + 900_000),
        };
      }),
    );
    return { searchId, resultIds };
  }

  /** One partner network asked during a search, answered. */
  async partnerCall(
    searchId: string,
    c: { partnerId: string; offerIds: string[]; status: string; latencyMs: number; resultCount: number; detail?: string },
  ) {
    await this.ds.query(
      `INSERT INTO search_partner_calls (search_id, partner_id, part_day, offer_ids, status, requested_at, answered_at, latency_ms, result_count, detail)
       SELECT $1, $2, s.part_day, $3::uuid[], $4, s.created_at, s.created_at + make_interval(secs => $5::int / 1000.0), $5, $6, $7 FROM searches s WHERE s.id = $1`,
      [searchId, c.partnerId, c.offerIds, c.status, c.latencyMs, c.resultCount, c.detail ?? null],
    );
  }

  /**
   * A submit or direct post as delivery leaves it once decided: the lead row
   * (decided, or still pending), its consent evidence when tcpa_consent was
   * sent, and for a reserved sale the sale with its cap slots and dedupe keys
   * (released on a buyer's refusal), and the delivery attempt.
   */
  async submit(x: {
    affiliateId: string;
    campaignId: string;
    apiKeyId: string;
    offerId: string;
    at: string;
    lead: Lead;
    searchId?: string;
    resultId?: string;
    groupId?: string;
    originLeadId?: string;
    isTest?: boolean;
    programId?: string | null;
    answers?: Record<string, string>;
    tracking?: Record<string, string>;
    decision:
      | { status: 'pending' }
      | {
          status: string;
          code: string;
          reason: string;
          decidedBy: 'service' | 'buyer';
          field?: string;
          payout?: number | null;
          afterMs?: number;
        };
    consent?: {
      tcpaConsent: boolean;
      tcpaText: string | null;
      buttonLabel: string | null;
      formCertUrl?: string | null;
      universalLeadCert?: string | null;
    };
    sale?: { payout: number | null; price: number | null; capPeriods?: string[] };
    attempt?: {
      outcome: string | null;
      httpStatus: number | null;
      latencyMs: number | null;
      detail: string | null;
      startAfterMs: number;
      durationMs: number | null;
    };
  }): Promise<string> {
    const id = randomUUID();
    const at = new Date(x.at);
    const kind = x.resultId ? 'result_submit' : 'direct_post';
    const d = x.decision;
    const decided = 'code' in d;
    const decidedAt = decided ? new Date(at.getTime() + (d.afterMs ?? 800)) : null;
    await this.ds.query(
      `INSERT INTO leads (id, search_id, result_id, kind, affiliate_id, campaign_id, offer_id, api_key_id, program_id, answers, lead, tracking,
                          consumer_ip, ip_source, is_test, status, code, reason, field, payout, created_at, decided_at, decided_by,
                          lead_group_id, origin_lead_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, '73.12.44.10', 'consumer', $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)`,
      [
        id,
        x.searchId ?? null,
        x.resultId ?? null,
        kind,
        x.affiliateId,
        x.campaignId,
        x.offerId,
        x.apiKeyId,
        x.programId ?? null,
        JSON.stringify(x.answers ?? {}),
        JSON.stringify(x.lead),
        JSON.stringify(x.tracking ?? { ip_address: '73.12.44.10' }),
        x.isTest ?? false,
        d.status,
        decided ? d.code : 'PENDING',
        decided ? d.reason : 'Lead pending',
        decided ? (d.field ?? null) : null,
        decided ? (d.status === 'accepted' ? (d.payout ?? null) : 0) : null,
        at,
        decidedAt,
        decided ? d.decidedBy : null,
        x.searchId ?? x.groupId ?? id,
        x.originLeadId ?? null,
      ],
    );
    if (x.consent) {
      const c = x.consent;
      await this.ds.query(
        `INSERT INTO consent_evidence (lead_id, tcpa_consent, tcpa_text, button_label, ip, consented_at, form_cert_url, universal_lead_cert)
         VALUES ($1, $2, $3, $4, '73.12.44.10', $5, $6, $7)`,
        [id, c.tcpaConsent, c.tcpaText, c.buttonLabel, at, c.formCertUrl ?? null, c.universalLeadCert ?? null],
      );
    }
    if (x.sale) {
      const accepted = d.status === 'accepted';
      await this.sale(id, x, at, accepted ? 'accepted' : 'released', decidedAt ?? at);
      if (x.searchId) {
        await this.ds.query(
          `UPDATE searches SET submitted_at = COALESCE(submitted_at, $2), accepted_count = accepted_count + $3, state_version = state_version + $3 WHERE id = $1`,
          [x.searchId, at, accepted ? 1 : 0],
        );
      }
    }
    if (x.attempt) {
      const a = x.attempt;
      const started = new Date(at.getTime() + a.startAfterMs);
      await this.ds.query(
        `INSERT INTO delivery_attempts (lead_id, attempt, started_at, finished_at, outcome, http_status, latency_ms, detail)
         VALUES ($1, 1, $2, $3, $4, $5, $6, $7)`,
        [
          id,
          started,
          a.durationMs === null ? null : new Date(started.getTime() + a.durationMs),
          a.outcome,
          a.httpStatus,
          a.latencyMs,
          a.detail,
        ],
      );
    }
    return id;
  }

  /** The reservation's rows (sale-ledger.ts): cap slots (scope and period start by libs/domain's capScope/capPeriodStart), dedupe keys while live. */
  private async sale(
    leadId: string,
    x: {
      offerId: string;
      campaignId: string;
      affiliateId: string;
      searchId?: string;
      groupId?: string;
      lead: Lead;
      sale?: { payout: number | null; price: number | null; capPeriods?: string[] };
    },
    at: Date,
    status: 'accepted' | 'released',
    updatedAt: Date,
  ): Promise<void> {
    const [offer]: Array<{ school_id: string; offer_type: string }> = await this.ds.query(
      `SELECT school_id, offer_type FROM offers WHERE id = $1`,
      [x.offerId],
    );
    const slots: Array<{ scope: string; period: string; period_start: string }> = [];
    for (const period of (x.sale!.capPeriods ?? []) as CapPeriod[]) {
      const [cap]: Array<{ timezone: string }> = await this.ds.query(
        `SELECT timezone FROM caps WHERE offer_id = $1 AND campaign_id IS NULL AND period = $2`,
        [x.offerId, period],
      );
      const [slot]: Array<{ scope: string; period: string; period_start: Date }> = await this.ds.query(
        `INSERT INTO cap_usage AS u (scope, period, period_start, used) VALUES ($1, $2, $3, $4)
         ON CONFLICT (scope, period, period_start) DO UPDATE SET used = u.used + $4
         RETURNING scope, period, period_start`,
        [capScope(x.offerId, null), period, capPeriodStart(period, cap.timezone, at), status === 'accepted' ? 1 : 0],
      );
      slots.push({ scope: slot.scope, period: slot.period, period_start: new Date(slot.period_start).toISOString() });
    }
    await this.ds.query(
      `INSERT INTO sales (lead_id, search_id, lead_group_id, offer_id, school_id, campaign_id, affiliate_id, offer_type, payout, price, status,
                          cap_slots, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        leadId,
        x.searchId ?? null,
        x.searchId ?? x.groupId ?? leadId,
        x.offerId,
        offer.school_id,
        x.campaignId,
        x.affiliateId,
        offer.offer_type,
        x.sale!.payout,
        x.sale!.price,
        status,
        JSON.stringify(slots),
        at,
        updatedAt,
      ],
    );
    if (status === 'accepted') {
      for (const key of leadDedupeKeys(TEST_PERSON_KEY_SECRET, x.lead)) {
        await this.ds.query(
          `INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [leadId, key.type, key.hash, x.offerId, offer.school_id, x.affiliateId, at],
        );
      }
    }
  }
}
