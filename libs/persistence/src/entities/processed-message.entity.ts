import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'processed_messages' })
export class ProcessedMessage {
  @PrimaryColumn('text') consumer: string;
  @PrimaryColumn('text', { name: 'message_id' }) messageId: string;
  @Column('text', { name: 'message_type' }) messageType: string;
  @Column('timestamptz', { name: 'processed_at', default: () => 'now()' }) processedAt: Date;
}
