import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { TIMESTAMP_NOW } from './column-types';
import { Lead } from './lead.entity';

/** What the consumer consented to for one lead: the statement shown, the button, the IP and time, certificates. */
@Entity({ name: 'consent_evidence' })
export class ConsentEvidence {
  @ForeignKey(() => Lead, { name: 'fk_consent_evidence_lead' })
  @PrimaryColumn('uuid', { name: 'lead_id' })
  leadId: string;
  @Column('boolean', { name: 'tcpa_consent' }) tcpaConsent: boolean;
  /** The offer's consent statement shown with the result, as it was then. */
  @Column('text', { name: 'tcpa_text', nullable: true }) tcpaText: string | null;
  @Column('text', { name: 'button_label', nullable: true }) buttonLabel: string | null;
  @Column('text') ip: string;
  @Column('timestamptz', { name: 'consented_at' }) consentedAt: Date;
  @Column('text', { name: 'form_cert_url', nullable: true }) formCertUrl: string | null;
  @Column('text', { name: 'universal_lead_cert', nullable: true }) universalLeadCert: string | null;
  @Column({ ...TIMESTAMP_NOW, name: 'created_at' }) createdAt: Date;
}
