import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { MONEY, TIMESTAMP_NOW } from './column-types';
import { Lead } from './lead.entity';

/**
 * The return of a sold lead by its school (docs/returns.md): at most one per
 * lead, appended, never updated. It holds the reversal entries (the
 * affiliate's payout and the school's price taken back: zero or negative; null
 * where nothing was booked) and the cap slots it gave back (`[]` when the
 * policy does not refund the cap). Its sale, offer, school, campaign and
 * affiliate are its lead's (checked by the lead's foreign keys, as the sale
 * ledger's rows are).
 */
@Entity({ name: 'lead_returns' })
@Check('ck_lead_returns_reason', `"reason" ~ '^[a-z][a-z0-9_]{0,39}$'`)
@Check('ck_lead_returns_note', `char_length("note") <= 500`)
@Check('ck_lead_returns_source', `"source" IN ('api', 'import')`)
@Check('ck_lead_returns_reversals', `"payout_reversal" <= 0 AND "price_reversal" <= 0`)
@Index('ix_lead_returns_affiliate_returned', ['affiliateId', 'returnedAt'])
@Index('ix_lead_returns_school_returned', ['schoolId', 'returnedAt'])
export class LeadReturn {
  @ForeignKey(() => Lead, { name: 'fk_lead_returns_lead' })
  @PrimaryColumn('uuid', { name: 'lead_id' })
  leadId: string;
  @Column('uuid', { name: 'sale_id' }) saleId: string;
  @Column('uuid', { name: 'offer_id' }) offerId: string;
  @Column('uuid', { name: 'school_id' }) schoolId: string;
  @Column('uuid', { name: 'campaign_id' }) campaignId: string;
  @Column('uuid', { name: 'affiliate_id' }) affiliateId: string;
  /** One of the offer's reason codes when it was returned. */
  @Column('text') reason: string;
  /** The school's free note, for operators only (never in metrics or logs). */
  @Column('text', { nullable: true }) note: string | null;
  /** `api` (the buyer API) or `import` (ops returns import). */
  @Column('text') source: 'api' | 'import';
  /** The school's key, on a return through the buyer API. */
  @Column('uuid', { name: 'api_key_id', nullable: true }) apiKeyId: string | null;
  @Column({ ...MONEY, name: 'payout_reversal', nullable: true }) payoutReversal: number | null;
  @Column({ ...MONEY, name: 'price_reversal', nullable: true }) priceReversal: number | null;
  /** The `cap_usage` slots given back: `[{scope, period, period_start}]`. */
  @Column('jsonb', { name: 'cap_slots', default: () => `'[]'` }) capSlots: Array<{ scope: string; period: string; period_start: string }>;
  @Column({ ...TIMESTAMP_NOW, name: 'returned_at' }) returnedAt: Date;
}
