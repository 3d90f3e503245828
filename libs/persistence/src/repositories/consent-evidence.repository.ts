import type { ConsentEvidence } from '@lr/domain';

/**
 * Consent evidence (`consent_evidence`): what each submit's consumer
 * consented to and how (the statement exactly as shown, the button label, the
 * IP, the time, the certificates). Written with the lead it belongs to, in the
 * statement that stores the lead (a refused or held lead: LeadRepository; a
 * sold one: SaleLedger.reserve), so the one INSERT lives here as a fragment.
 */

/**
 * A data-modifying CTE body that stores the evidence of lead `leadParam`
 * (parameters from consentParams, starting at `$first`), when `when` holds
 * (an SQL condition on the other CTEs of the statement). No row when the
 * submit sent no consent decision.
 */
export const CONSENT_INSERT = (leadParam: string, first: number, when: string) => {
  const p = (n: number) => `$${first + n}`;
  return `INSERT INTO consent_evidence (lead_id, tcpa_consent, tcpa_text, button_label, ip, consented_at, form_cert_url, universal_lead_cert)
          SELECT ${leadParam}, ${p(0)}::boolean, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}::timestamptz, ${p(5)}, ${p(6)}
           WHERE ${p(0)}::boolean IS NOT NULL AND ${when}
          RETURNING 1`;
};

/** The 7 parameters of CONSENT_INSERT, all null when there is no consent decision to keep. */
export function consentParams(c: ConsentEvidence | null): Array<string | boolean | null> {
  if (!c) return [null, null, null, null, null, null, null];
  return [c.tcpaConsent, c.statement, c.buttonLabel, c.ip, c.at, c.formCertUrl, c.universalLeadCert];
}
