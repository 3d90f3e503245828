import type { ConsentEvidence, ConsentLedgerEntry } from '@lr/domain';

/**
 * Consent evidence (`consent_evidence`): what each submit's consumer
 * consented to and how (the statement exactly as shown, the button label, the
 * IP, the time, the certificates). Written with the lead it belongs to, in the
 * statement that stores the lead (a refused or held lead: LeadRepository; a
 * sold one: SaleLedger.reserve), so the one INSERT lives here as a fragment,
 * with the consent ledger's append (CONSENT_APPEND: docs/consent-ledger.md).
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
          RETURNING lead_id`;
};

/**
 * A data-modifying CTE body that appends the evidence just stored by the CTE
 * `consent` (CONSENT_INSERT) to the consent ledger (parameters from
 * ledgerParams, starting at `$first`): a live lead's consent event, in the
 * same statement as its evidence, so there is one record per stored evidence
 * (a redelivered submit stores none and appends none). The chainer
 * (ConsentLedger.chain) links it into the chain later.
 */
export const CONSENT_APPEND = (consent: string, first: number) => {
  const p = (n: number) => `$${first + n}`;
  return `INSERT INTO consent_ledger (lead_id, school_id, email_key, phone_key)
          SELECT c.lead_id, ${p(1)}::uuid, ${p(2)}::char(64), ${p(3)}::char(64) FROM ${consent} c WHERE ${p(0)}::boolean
          ON CONFLICT (lead_id) DO NOTHING
          RETURNING 1`;
};

/** The 4 parameters of CONSENT_APPEND; null (a test lead): nothing is appended. */
export function ledgerParams(e: ConsentLedgerEntry | null): Array<string | boolean | null> {
  if (!e) return [false, null, null, null];
  return [true, e.schoolId, e.emailKey, e.phoneKey];
}

/** The 7 parameters of CONSENT_INSERT, all null when there is no consent decision to keep. */
export function consentParams(c: ConsentEvidence | null): Array<string | boolean | null> {
  if (!c) return [null, null, null, null, null, null, null];
  return [c.tcpaConsent, c.statement, c.buttonLabel, c.ip, c.at, c.formCertUrl, c.universalLeadCert];
}
