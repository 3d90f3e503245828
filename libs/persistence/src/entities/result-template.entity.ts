import { Column, Entity, PrimaryColumn } from 'typeorm';
import { MONEY } from './column-types';

/**
 * What a result entry shows apart from its id and expiry, stored once per day
 * and shared by every result built from it (docs/storage.md). `digest` is the
 * first 128 bits of the SHA-256 of `body`, the entry's JSON text without
 * `svc_result_id` and `expires_at`. Partitioned by `part_day` like `searches`
 * (migration 1764800000000); the `results` view rebuilds each entry.
 */
@Entity({ name: 'result_templates' })
export class ResultTemplate {
  @PrimaryColumn('date', { name: 'part_day' }) partDay: string;
  @PrimaryColumn('uuid') digest: string;
  @Column('uuid', { name: 'offer_id' }) offerId: string;
  /** The entry's best payout (what a result ranks by); null when none is configured. */
  @Column({ ...MONEY, nullable: true }) payout: number | null;
  @Column('text') body: string;
}
