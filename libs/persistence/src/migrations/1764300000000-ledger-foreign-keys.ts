import { MigrationInterface, QueryRunner } from 'typeorm';
import { DroppedForeignKey, dropForeignKeys, restoreForeignKeys } from './foreign-keys';

/**
 * The sale ledger's rows (`sales`, `dedupe_keys`) keep one foreign key each:
 * to their lead. The catalog and search columns they carry (offer, school,
 * campaign, affiliate, search) are copies of the lead's, written from the same
 * values in the same statement as the lead, whose own foreign keys check them.
 * Checked again on every row, they cost a trigger query and a row lock on the
 * same hot catalog rows (the affiliate, the campaign, the offer) per sale and
 * per dedupe key: about two thirds of the sale's write (docs/data-model.md,
 * "Foreign keys").
 */
const DROPPED: DroppedForeignKey[] = [
  { table: 'sales', name: 'fk_sales_search', column: 'search_id', references: 'searches' },
  { table: 'sales', name: 'fk_sales_offer', column: 'offer_id', references: 'offers' },
  { table: 'sales', name: 'fk_sales_school', column: 'school_id', references: 'schools' },
  { table: 'sales', name: 'fk_sales_campaign', column: 'campaign_id', references: 'campaigns' },
  { table: 'sales', name: 'fk_sales_affiliate', column: 'affiliate_id', references: 'affiliates' },
  { table: 'dedupe_keys', name: 'fk_dedupe_keys_offer', column: 'offer_id', references: 'offers' },
  { table: 'dedupe_keys', name: 'fk_dedupe_keys_school', column: 'school_id', references: 'schools' },
  { table: 'dedupe_keys', name: 'fk_dedupe_keys_affiliate', column: 'affiliate_id', references: 'affiliates' },
];

export class LedgerForeignKeys1764300000000 implements MigrationInterface {
  name = 'LedgerForeignKeys1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await dropForeignKeys(q, DROPPED);
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreForeignKeys(q, DROPPED);
  }
}
