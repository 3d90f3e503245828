import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';

/** A school: the buyer of own offers' leads, and who partner offers are for. */
@Entity({ name: 'schools' })
export class School {
  @PrimaryColumn('uuid') id: string;
  @Column('text') name: string;
  @Column('text', { name: 'logo_url', nullable: true }) logoUrl: string | null;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
  @Column({ ...TIMESTAMP_NOW, name: 'updated_at' }) updatedAt: Date;
}
