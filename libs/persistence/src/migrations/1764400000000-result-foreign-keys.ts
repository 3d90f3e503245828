import { MigrationInterface, QueryRunner } from 'typeorm';
import { DroppedForeignKey, dropForeignKeys, restoreForeignKeys } from './foreign-keys';

/**
 * A search's rows (`results`, `search_partner_calls`) keep their foreign key
 * to the search and lose the ones to the catalog. Their offer, campaign and
 * partner are the search's own (its campaign) or read from the catalog by the
 * statement's caller, written in the same statement as the search or under
 * its update; catalog rows are never deleted (`catalog apply` deactivates).
 * Checked on every row, they cost a trigger query and a share lock on the
 * same hot catalog rows (the campaign, each offer, each partner) for each of
 * a search's ~50 rows: 2 of every 3 checks a search's store made
 * (docs/data-model.md, "Foreign keys").
 */
const DROPPED: DroppedForeignKey[] = [
  { table: 'results', name: 'fk_results_offer', column: 'offer_id', references: 'offers' },
  { table: 'results', name: 'fk_results_campaign', column: 'campaign_id', references: 'campaigns' },
  { table: 'search_partner_calls', name: 'fk_search_partner_calls_partner', column: 'partner_id', references: 'partners' },
];

export class ResultForeignKeys1764400000000 implements MigrationInterface {
  name = 'ResultForeignKeys1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await dropForeignKeys(q, DROPPED);
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreForeignKeys(q, DROPPED);
  }
}
