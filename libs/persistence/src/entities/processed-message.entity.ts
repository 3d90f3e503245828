import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'processed_messages' }) // partitioned by part_day (migration 1764800000000)
export class ProcessedMessage {
  @PrimaryColumn('text') consumer: string;
  @PrimaryColumn('text', { name: 'message_id' }) messageId: string;
  /** The UTC day it was handled: the partition (claimed once across days by lr_claim_message). */
  @PrimaryColumn('date', { name: 'part_day' }) partDay: string;
  @Column('text', { name: 'message_type' }) messageType: string;
  @Column('timestamptz', { name: 'processed_at', default: () => 'now()' }) processedAt: Date;
}
