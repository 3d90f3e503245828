import type { ResultEntry } from '../vocabulary/offers';
import { Decision, SUBMIT } from '../decisions/decision-catalog';

/**
 * Consent on a submit (affiliate-api.md, "Consent fields"; "Consent is never
 * taken from the search: sent with every submit for the statement shown with
 * that result"): absent is a missing field, false is a refusal.
 */
export function checkConsent(tcpaConsent: boolean | null): Decision | null {
  if (tcpaConsent === null) return SUBMIT.consentMissing;
  if (!tcpaConsent) return SUBMIT.consentRequired;
  return null;
}

/**
 * What the consumer consented to and how, as the service keeps it (ARCHITECTURE.md,
 * "consent evidence (statement shown, button label, IP, time, certificates)").
 */
export interface ConsentEvidence {
  tcpaConsent: boolean;
  /** The statement exactly as shown with the result (never the catalog's text of later). */
  statement: string | null;
  buttonLabel: string | null;
  ip: string;
  at: string;
  formCertUrl: string | null;
  universalLeadCert: string | null;
}

/**
 * The statement the consumer saw: the one shown with the result (its entry's
 * `offer.tcpa_text`, a partner's own included), or the offer's on a direct
 * post. Kept exactly as shown: the catalog's text may change later.
 */
export function statementShown(shown: Pick<ResultEntry, 'offer'> | null, offerStatement: string | null): string | null {
  return shown ? shown.offer.tcpa_text : offerStatement;
}

/**
 * The evidence of one submit: the submit's own consent decision, the
 * statement shown, the consumer IP of the lead, the submit's certificates,
 * else the search's ("form_cert_url, universal_lead_cert: consent
 * certificates (search and direct post)").
 */
export function consentEvidence(args: {
  tcpaConsent: boolean;
  statement: string | null;
  buttonLabel: string | null;
  ip: string;
  at: string;
  submitted: { formCertUrl: string | null; universalLeadCert: string | null };
  search: { formCertUrl: string | null; universalLeadCert: string | null } | null;
}): ConsentEvidence {
  return {
    tcpaConsent: args.tcpaConsent,
    statement: args.statement,
    buttonLabel: args.buttonLabel,
    ip: args.ip,
    at: args.at,
    formCertUrl: args.submitted.formCertUrl ?? args.search?.formCertUrl ?? null,
    universalLeadCert: args.submitted.universalLeadCert ?? args.search?.universalLeadCert ?? null,
  };
}
