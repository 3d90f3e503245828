import type { LeadPayload } from '@lr/contracts';
import type { SchoolDelivery } from './school-adapter';

/**
 * The default lead document (docs/delivery-adapters.md): what the sandbox
 * adapter sends, what the json adapter sends without a field_map, and what a
 * field_map's sources name (libs/domain LEAD_DOCUMENT_FIELDS lists its paths).
 */
export interface LeadDocument {
  lead_id: string;
  offer: { id: string; name: string; school_name: string };
  lead: LeadPayload;
  tracking: Record<string, string>;
  consumer_ip: string;
  program_id: string | null;
  answers: Record<string, string>;
  consent: {
    tcpa_consent: boolean;
    tcpa_text: string | null;
    button_label: string | null;
    consented_at: string;
    ip: string;
    form_cert_url: string | null;
    universal_lead_cert: string | null;
  };
  submitted_at: string;
}

const LEAD_GROUPS = ['personal', 'address', 'education', 'background'] as const;

export function leadDocument(d: SchoolDelivery): LeadDocument {
  const lead: LeadPayload = {};
  for (const group of LEAD_GROUPS) {
    if (d.lead[group]) lead[group] = { ...d.lead[group] };
  }
  return {
    lead_id: d.leadId,
    offer: { id: d.offer.id, name: d.offer.name, school_name: d.offer.schoolName },
    lead,
    tracking: { ...d.tracking },
    consumer_ip: d.consumerIp,
    program_id: d.programId,
    answers: { ...d.answers },
    consent: {
      tcpa_consent: d.consent.tcpaConsent,
      tcpa_text: d.consent.tcpaText,
      button_label: d.consent.buttonLabel,
      consented_at: d.consent.consentedAt,
      ip: d.consent.ip,
      form_cert_url: d.consent.formCertUrl,
      universal_lead_cert: d.consent.universalLeadCert,
    },
    submitted_at: d.submittedAt,
  };
}
