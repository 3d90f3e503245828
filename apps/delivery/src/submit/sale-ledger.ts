import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { SubmitCheckRefusal } from '@lr/contracts';
import { Lead, leadDedupeKeys, saleRefusal, saleRefusalAnswer, sameLead } from '@lr/domain';
import { loadLiveSales, offersAlreadySoldToPerson, rowsOf } from '@lr/persistence';
import type { SubmitContext } from './submit-context';

export type ReservationResult = { kind: 'reserved' } | { kind: 'refused'; refusal: SubmitCheckRefusal } | { kind: 'forbidden' };

/** A refusal found inside the reservation: the transaction rolls back, nothing is taken. */
class Refused extends Error {
  constructor(readonly result: Exclude<ReservationResult, { kind: 'reserved' }>) {
    super(result.kind);
  }
}

interface CapSlot {
  scope: string;
  period: string;
  period_start: string;
}

/**
 * The atomic sale (issue: submit and delivery, item 4). One PostgreSQL
 * transaction takes everything a sale needs or nothing:
 * 1. the lead group's row is locked (`FOR UPDATE` on the search, or on the
 *    first direct post), which serializes the submits of one lead: the sales
 *    rules (at most 3, exclusive, true_exclusive, one sale per offer) are then
 *    read and applied with no other submit of the lead in between; a lead
 *    already submitted refuses a change of its data here (403);
 * 2. the person's dedupe keys on this offer are locked (transaction advisory
 *    locks, in a fixed order), so two searches of the same person cannot both
 *    pass the duplicate check; then the check runs;
 * 3. each cap's slot is taken with one conditional upsert
 *    (`used = used + 1 … WHERE used < limit`), never read-then-write;
 * 4. the sale (reserved, with the slots it took), the dedupe keys and the
 *    search's submitted lead are written.
 * A release gives back exactly the slots taken and drops the dedupe keys.
 */
@Injectable()
export class SaleLedger {
  constructor(private readonly ds: DataSource) {}

  async reserve(ctx: SubmitContext, payout: number | null): Promise<ReservationResult> {
    try {
      await this.ds.transaction(async (em) => {
        await this.lockGroup(em, ctx);
        // A twin of this message (a redelivery while the first copy still runs) reserved already: nothing more to take.
        const own: unknown[] = await em.query(`SELECT 1 FROM sales WHERE lead_id = $1`, [ctx.msg.leadId]);
        if (own.length > 0) return;
        const offer = { offerId: ctx.offer.id, schoolId: ctx.offer.schoolId, offerType: ctx.offer.offerType };
        const sale = saleRefusal(await loadLiveSales(em, ctx.leadGroupId), offer);
        if (sale) throw new Refused({ kind: 'refused', refusal: { status: 'rejected', ...saleRefusalAnswer(sale) } });

        const keys = leadDedupeKeys(ctx.lead).sort((a, b) => `${a.type}:${a.hash}`.localeCompare(`${b.type}:${b.hash}`));
        for (const k of keys) await em.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`dedupe:${ctx.offer.id}:${k.type}:${k.hash}`]);
        const sold = await offersAlreadySoldToPerson(em, keys, [{ offerId: ctx.offer.id, windowDays: ctx.offer.duplicateWindowDays }]);
        if (sold.size > 0) throw new Refused({ kind: 'refused', refusal: { status: 'rejected', code: 'DUPLICATE', reason: 'Duplicate - Offer' } });

        const slots = await this.takeCapSlots(em, ctx);
        await em.query(
          `INSERT INTO sales (lead_id, search_id, lead_group_id, offer_id, school_id, campaign_id, affiliate_id, offer_type, payout, price,
                              status, cap_slots)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'reserved', $11)`,
          [
            ctx.msg.leadId, ctx.msg.searchId, ctx.leadGroupId, ctx.offer.id, ctx.offer.schoolId, ctx.msg.campaignId, ctx.msg.affiliateId,
            ctx.offer.offerType, payout, ctx.offer.price, JSON.stringify(slots),
          ],
        );
        if (keys.length > 0) {
          await em.query(
            `INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at)
             SELECT $1, k.key_type, k.key_hash, $4, $5, $6, now() FROM unnest($2::text[], $3::text[]) AS k(key_type, key_hash)
             ON CONFLICT DO NOTHING`,
            [ctx.msg.leadId, keys.map((k) => k.type), keys.map((k) => k.hash), ctx.offer.id, ctx.offer.schoolId, ctx.msg.affiliateId],
          );
        }
        if (ctx.msg.kind === 'result_submit') {
          await em.query(`UPDATE searches SET lead = $2, submitted_at = COALESCE(submitted_at, now()) WHERE id = $1`, [
            ctx.msg.searchId,
            JSON.stringify(ctx.lead),
          ]);
        }
      });
      return { kind: 'reserved' };
    } catch (e) {
      if (e instanceof Refused) return e.result;
      throw e;
    }
  }

  /**
   * Marks the sale accepted and books the lead's decision. Conditional on the
   * lead still pending, so a second finalizer (a redelivery) changes nothing.
   * Returns false when the lead was already decided.
   */
  async accept(em: EntityManager, leadId: string, payout: number | null): Promise<boolean> {
    const rows = rowsOf<{ search_id: string | null }>(await em.query(
      `UPDATE leads SET status = 'accepted', code = 'ACCEPTED', reason = 'Lead accepted', payout = $2, decided_at = now(), decided_by = 'buyer'
        WHERE id = $1 AND status = 'pending' RETURNING search_id`,
      [leadId, payout],
    ));
    if (rows.length === 0) return false;
    const sales = rowsOf<{ offer_type: string }>(
      await em.query(`UPDATE sales SET status = 'accepted', updated_at = now() WHERE lead_id = $1 AND status = 'reserved' RETURNING offer_type`, [leadId]),
    );
    const searchId = rows[0].search_id;
    if (searchId && sales.length > 0) {
      await em.query(
        `UPDATE searches SET accepted_count = accepted_count + 1,
                             true_exclusive_accepted = true_exclusive_accepted OR $2,
                             state_version = state_version + 1
          WHERE id = $1`,
        [searchId, sales[0].offer_type === 'true_exclusive'],
      );
    }
    return true;
  }

  /** Gives back the lead's reserved sale: its cap slots and its dedupe keys. */
  async release(em: EntityManager, leadId: string): Promise<void> {
    const sales = rowsOf<{ cap_slots: CapSlot[] }>(
      await em.query(`UPDATE sales SET status = 'released', updated_at = now() WHERE lead_id = $1 AND status = 'reserved' RETURNING cap_slots`, [leadId]),
    );
    for (const slot of sales[0]?.cap_slots ?? []) {
      await em.query(
        `UPDATE cap_usage SET used = used - 1, updated_at = now() WHERE scope = $1 AND period = $2 AND period_start = $3 AND used > 0`,
        [slot.scope, slot.period, slot.period_start],
      );
    }
    await em.query(`DELETE FROM dedupe_keys WHERE lead_id = $1`, [leadId]);
  }

  private async lockGroup(em: EntityManager, ctx: SubmitContext): Promise<void> {
    let stored: Lead | null = null;
    let submitted = false;
    if (ctx.msg.kind === 'result_submit') {
      const rows: Array<{ lead: Lead; submitted_at: Date | null }> = await em.query(
        `SELECT lead, submitted_at FROM searches WHERE id = $1 FOR UPDATE`,
        [ctx.msg.searchId],
      );
      stored = rows[0]?.lead ?? null;
      submitted = rows[0]?.submitted_at != null;
    } else if (ctx.leadGroupId !== ctx.msg.leadId) {
      const rows: Array<{ lead: Lead }> = await em.query(`SELECT lead FROM leads WHERE id = $1 FOR UPDATE`, [ctx.leadGroupId]);
      stored = rows[0]?.lead ?? null;
      submitted = stored !== null;
    }
    if (submitted && stored && !sameLead(stored, ctx.lead)) throw new Refused({ kind: 'forbidden' });
  }

  /** One conditional upsert per cap, in a fixed order (offer caps first): a full cap takes nothing and refuses. */
  private async takeCapSlots(em: EntityManager, ctx: SubmitContext): Promise<CapSlot[]> {
    const slots: CapSlot[] = [];
    for (const cap of ctx.offer.caps) {
      const rows = rowsOf<{ scope: string; period: string; period_start: Date }>(await em.query(
        `INSERT INTO cap_usage AS u (scope, period, period_start, used)
         SELECT cap_scope($1, $2), $3, cap_period_start($3, $4, now()), 1 WHERE $5 > 0
         ON CONFLICT (scope, period, period_start) DO UPDATE SET used = u.used + 1, updated_at = now() WHERE u.used < $5
         RETURNING scope, period, period_start`,
        [ctx.offer.id, cap.campaignId, cap.period, cap.timezone, cap.limit],
      ));
      if (rows.length === 0) throw new Refused({ kind: 'refused', refusal: { status: 'rejected', code: 'CAP_REACHED', reason: 'Cap reached' } });
      slots.push({ scope: rows[0].scope, period: rows[0].period, period_start: new Date(rows[0].period_start).toISOString() });
    }
    return slots;
  }
}
