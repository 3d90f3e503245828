import {
  consentEvidenceErasure,
  ContactValues,
  ERASED_IP,
  eraseStoredContact,
  expireAtErasure,
  maskContactJson,
  maskContactText,
  sameJson,
  testMode,
} from '@lr/domain';
import type { ErasedLead, ErasedSearch, LeadContact, SearchContact } from '@lr/persistence';

/**
 * A stored search without the person (libs/domain erasure.ts): its lead,
 * consumer IP and tracking erased, contact values masked wherever operators'
 * text may repeat them (offer decisions, partner data, partner calls'
 * details), its results expired at `at`. Offer decisions and everything
 * else stay.
 */
export function erasedSearch(s: SearchContact, values: ContactValues, at: Date): ErasedSearch {
  const contact = eraseStoredContact(s, values);
  return {
    lead: contact.lead,
    tracking: contact.tracking,
    consumerIp: contact.consumerIp,
    offerDecisions: maskContactJson(s.offerDecisions, values),
    resultPartner: maskContactJson(s.resultPartner, values),
    resultExpires: expireAtErasure(s.resultExpires, at),
    partnerCalls: changedTexts(s.partnerCalls, values),
  };
}

/** What the erasure did to a lead's consent evidence: kept whole (the consent record), or its IP erased (a test lead's). */
export type EvidenceOutcome = 'none' | 'kept' | 'ip-erased';

/**
 * A stored lead without the person: its lead, consumer IP, tracking erased,
 * answers, delivery attempts' details (a buyer's own words), revocation
 * receipt and return note masked; its consent evidence as libs/domain
 * consentEvidenceErasure decides (a live lead's is kept whole).
 */
export function erasedLead(l: LeadContact, values: ContactValues): { erased: ErasedLead; evidence: EvidenceOutcome } {
  const contact = eraseStoredContact(l, values);
  const rule = l.consent && consentEvidenceErasure(testMode(l.isTest), l.ipSource);
  const consent =
    l.consent && rule && (rule.eraseIp || rule.maskButtonLabel)
      ? {
          ip: rule.eraseIp ? ERASED_IP : l.consent.ip,
          buttonLabel: l.consent.buttonLabel === null ? null : maskContactText(l.consent.buttonLabel, values),
        }
      : null;
  const receipt = l.receipt === null ? undefined : maskContactJson(l.receipt, values);
  const returnNote = l.returnNote === null ? undefined : maskContactText(l.returnNote, values);
  return {
    erased: {
      lead: contact.lead,
      tracking: contact.tracking,
      consumerIp: contact.consumerIp,
      answers: maskContactJson(l.answers, values),
      consent,
      attempts: changedTexts(l.attempts, values),
      ...(receipt === undefined || sameJson(receipt, l.receipt) ? {} : { receipt }),
      ...(returnNote === undefined || returnNote === l.returnNote ? {} : { returnNote }),
    },
    evidence: !l.consent ? 'none' : rule?.eraseIp ? 'ip-erased' : 'kept',
  };
}

/** Free texts with contact values masked: only those that change. */
function changedTexts<T extends { detail: string }>(rows: readonly T[], values: ContactValues): T[] {
  return rows.flatMap((r) => {
    const detail = maskContactText(r.detail, values);
    return detail === r.detail ? [] : [{ ...r, detail }];
  });
}
