import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import type { DeliveryBuyer, DeliveryRequestedV1, SubmitAnswerV1, SubmitRequestedV1 } from '@lr/contracts';
import {
  bookedPayout,
  CampaignOffer,
  capsAt,
  ConsentEvidence,
  consentEvidence,
  contactValuesOf,
  eraseStoredContact,
  ConsentLedgerEntry,
  consentLedgerEntry,
  Decision,
  decimalText,
  Lead,
  leadOptOutKeys,
  mergeLead,
  preCheckSubmit,
  REFUSAL,
  sameLead,
  statementShown,
  SUBMIT,
  TestMode,
  testMode,
} from '@lr/domain';
import { counter } from '@lr/observability';
import { LeadRepository, NewLead, ReservationPlan, SaleLedger, StoredLead, decisionOf } from '@lr/persistence';
import { CampaignCatalog } from '@lr/platform';

const decided = counter('checks_submit_refusals_total', 'Submits the checks decided themselves (refused, or a test lead held), by code', [
  'code',
]);

/** What the use case answers: the submit answer now, or the reserved lead forwarded to delivery (which answers). */
export type SubmitOutcome = { answer: SubmitAnswerV1 } | { deliver: DeliveryRequestedV1 };

/**
 * Decides one submit or direct post (affiliate-api.md, POST /api/v1/engine/leads;
 * docs/submit.md): "checks run again in full (duplicate, caps, eligibility,
 * required fields, consent) before the buyer receives the lead". Every rule
 * is libs/domain's; this reads the facts, asks, and writes:
 *   stored already (a redelivery)?  decided -> its decision; reserved -> to delivery again
 *   result / earlier post gone?     404 (nothing saved)
 *   data of a submitted lead changed? 403 (nothing saved)
 *   offer, answers, consent, eligibility (no lock) -> refused, stored with the decision
 *   test lead                                       -> held (caps still apply), stored
 *   live lead: the reservation (SaleLedger) -> refused (sale rules, duplicate, cap) or reserved
 *   reserved                                        -> forwarded to delivery, which answers
 */
@Injectable()
export class DecideSubmit {
  constructor(
    private readonly catalog: CampaignCatalog,
    private readonly leads: LeadRepository,
    private readonly ledger: SaleLedger,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'personKeySecret'>,
  ) {}

  async run(msg: SubmitRequestedV1, now = new Date()): Promise<SubmitOutcome> {
    const ctx = await this.leads.submitContext({
      leadId: msg.leadId,
      affiliateId: msg.affiliateId,
      resultId: msg.resultId,
      searchId: msg.searchId,
      originLeadId: msg.originLeadId,
    });
    if (ctx.stored) return ctx.stored.status === 'pending' ? this.resume(msg, ctx.stored) : decision(ctx.stored);
    const offers = await this.catalog.offersOf(msg.campaignId);

    let sale: SubmitToSell;
    if (msg.kind === 'result_submit') {
      // The gateway found the result; gone since (it cannot be, but the answer must not be a 500).
      if (!ctx.picked) return refused(REFUSAL.resultNotFound);
      const picked = ctx.picked;
      const lead = mergeLead(picked.searchLead, msg.lead as Lead | null);
      sale = {
        msg,
        offer: offers.find((o) => o.offerId === picked.offerId),
        offerId: picked.offerId,
        groupId: msg.searchId!,
        lead,
        groupLead: picked.searchLead,
        submitted: picked.submitted,
        mode: testMode(msg.isTest, picked.isTest),
        tracking: picked.tracking,
        consumerIp: picked.consumerIp,
        ipSource: picked.ipSource,
        picked: { shown: { programs: picked.entry.programs, formFields: picked.entry.form_fields }, expiresAt: picked.expiresAt },
        shownStatement: statementShown(picked.entry, null),
        partnerResultId: picked.partnerResultId,
        searchCerts: { formCertUrl: picked.formCertUrl, universalLeadCert: picked.universalLeadCert },
      };
    } else {
      if (msg.originLeadId && !ctx.origin) return refused(REFUSAL.originLeadNotFound);
      const offer = offers.find((o) => o.offerId === msg.offerId);
      // The gateway found the offer on the campaign; it left it since.
      if (!offer) return refused(REFUSAL.offerNotFound);
      sale = {
        msg,
        offer,
        offerId: offer.offerId,
        groupId: ctx.origin?.leadGroupId ?? msg.leadId,
        lead: msg.lead as Lead,
        groupLead: ctx.origin?.lead ?? null,
        submitted: ctx.origin !== null,
        mode: testMode(msg.isTest, ctx.origin?.isTest),
        tracking: msg.tracking ?? {},
        consumerIp: msg.consumerIp!,
        ipSource: msg.ipSource ?? 'consumer',
        picked: null,
        shownStatement: statementShown(null, offer.tcpaText),
        partnerResultId: null,
        searchCerts: null,
      };
    }
    // "Submitted lead: request that would change its data: refused with 403 FORBIDDEN; nothing is saved."
    if (sale.submitted && sale.groupLead && !sameLead(sale.groupLead, sale.lead)) return forbidden();

    const checked = preCheckSubmit(
      sale.offer,
      sale.picked,
      { programId: msg.programId, answers: msg.answers, tcpaConsent: msg.tcpaConsent },
      sale.lead,
      sale.mode,
      now,
    );
    if (!checked.ok) return this.refuse(sale, checked.decision, null, {});
    const offer = sale.offer!;
    const { programId, answers, saleDecision } = checked;

    if (sale.mode.holdsInsteadOfSelling) {
      const caps = capsAt(offer.caps, now);
      const facts = await this.ledger.saleFacts({
        groupId: sale.groupId,
        slots: caps.map((c) => c.slot),
        keys: [],
        offerIds: [offer.offerId],
        optOutKeys: leadOptOutKeys(this.config.personKeySecret, sale.lead),
      });
      return this.refuse(sale, saleDecision(facts) ?? SUBMIT.testLeadHeld, programId, answers, facts.suppressed);
    }

    const caps = capsAt(offer.caps, now);
    const payout = bookedPayout(offer.payouts, programId);
    let sold: Lead = sale.lead;
    let suppressed = false;
    const lockedKeys = sale.mode.personKeys(this.config.personKeySecret, sale.lead);
    const result = await this.ledger.reserve(
      {
        leadId: msg.leadId,
        groupId: sale.groupId,
        offerId: offer.offerId,
        keys: lockedKeys,
        optOutKeys: leadOptOutKeys(this.config.personKeySecret, sale.lead),
        caps,
        searchId: msg.searchId,
      },
      (facts): ReservationPlan => {
        // What the group holds now decides: another submit of the lead may have changed its data since it was read.
        const lead = msg.kind === 'result_submit' && facts.groupLead ? mergeLead(facts.groupLead, msg.lead as Lead | null) : sale.lead;
        if (facts.submitted && facts.groupLead && !sameLead(facts.groupLead, lead)) return { kind: 'forbidden' };
        const keys = sameLead(lead, sale.lead) ? lockedKeys : sale.mode.personKeys(this.config.personKeySecret, lead);
        const locked = new Set(lockedKeys.map((k) => `${k.type}:${k.hash}`));
        if (keys.some((k) => !locked.has(`${k.type}:${k.hash}`))) return { kind: 'lock-keys', keys };
        const refusal = saleDecision(facts);
        suppressed = facts.suppressed;
        if (refusal) return { kind: 'refuse', decision: refusal };
        sold = lead;
        return {
          kind: 'sell',
          sale: {
            lead: newLead(sale, lead, programId, answers),
            consent: this.consent(sale),
            consentLedger: this.consentLedger(sale, lead),
            offerId: offer.offerId,
            schoolId: offer.schoolId,
            offerType: offer.offerType,
            payout,
            price: offer.price,
            caps,
            keys,
            search: msg.kind === 'result_submit' ? { id: msg.searchId!, lead, keys } : null,
          },
        };
      },
    );
    switch (result.kind) {
      case 'forbidden':
        return forbidden();
      case 'refused':
        return this.refuse(sale, result.decision, programId, answers, suppressed);
      case 'stored':
        return result.lead.status === 'pending' ? this.resume(msg, result.lead) : decision(result.lead);
      case 'reserved':
        return {
          deliver: deliveryRequest(
            sale,
            offer,
            sold,
            programId,
            answers,
            payout === null ? null : decimalText(payout),
            this.consent(sale)!,
          ),
        };
    }
  }

  /**
   * A refused or held submit is stored with its decision (and its consent
   * evidence), and answered. A suppressed person's is stored without contact
   * data (their data is not processed); its consent evidence is kept as the
   * affiliate sent it, the record of a consent claimed for someone who had
   * opted out.
   */
  private async refuse(
    sale: SubmitToSell,
    d: Decision,
    programId: string | null,
    answers: Record<string, string>,
    suppressed = false,
  ): Promise<SubmitOutcome> {
    const lead = newLead(sale, sale.lead, programId ?? sale.msg.programId, answers);
    const kept = suppressed ? { ...lead, ...eraseStoredContact(lead, contactValuesOf([lead.lead])) } : lead;
    const stored = await this.leads.storeDecided(kept, d, this.consent(sale), this.consentLedger(sale, sale.lead));
    decided.inc({ code: stored.code ?? d.code });
    return decision(stored);
  }

  /** The consent evidence of the submit (none when it sent no consent decision). */
  private consent(sale: SubmitToSell): ConsentEvidence | null {
    const m = sale.msg;
    if (m.tcpaConsent === null) return null;
    return consentEvidence({
      tcpaConsent: m.tcpaConsent,
      statement: sale.shownStatement,
      buttonLabel: m.consentButtonLabel,
      ip: sale.consumerIp,
      at: m.requestedAt,
      submitted: { formCertUrl: m.formCertUrl, universalLeadCert: m.universalLeadCert },
      search: sale.searchCerts,
    });
  }

  /** What the consent ledger keeps of the submit's consent event beside its evidence (none for a test lead: libs/domain decides). */
  private consentLedger(sale: SubmitToSell, lead: Lead): ConsentLedgerEntry | null {
    if (sale.msg.tcpaConsent === null) return null;
    return consentLedgerEntry(sale.mode, this.config.personKeySecret, lead, sale.offer?.schoolId ?? null);
  }

  /**
   * A redelivered submit whose sale was reserved: its buyer may not have been
   * called yet, so it goes to delivery again (delivery calls a buyer at most
   * once). Its offer may have left the campaign since: then it can no longer
   * be sold, and the sale is released.
   */
  private async resume(msg: SubmitRequestedV1, stored: StoredLead): Promise<SubmitOutcome> {
    const reserved = await this.leads.reserved(stored.id);
    const offer = (await this.catalog.offersOf(stored.campaignId)).find((o) => o.offerId === stored.offerId);
    if (!reserved || !offer) {
      const { lead } = await this.ledger.settle({
        leadId: stored.id,
        outcome: 'rejected',
        decision: SUBMIT.offerUnavailable,
        attempt: null,
        payout: null,
        endsOtherSales: false,
      });
      return decision(lead);
    }
    const sale: SubmitToSell = {
      msg,
      offer,
      offerId: offer.offerId,
      groupId: stored.leadGroupId,
      lead: reserved.lead,
      groupLead: null,
      submitted: true,
      mode: testMode(stored.isTest),
      tracking: reserved.tracking,
      consumerIp: reserved.consumerIp,
      ipSource: 'consumer',
      picked: null,
      shownStatement: reserved.shownStatement ?? offer.tcpaText,
      partnerResultId: reserved.partnerResultId,
      searchCerts: null,
    };
    const consent = reserved.consent ?? this.consent(sale)!;
    const payout = reserved.payout === null ? null : decimalText(reserved.payout);
    return {
      deliver: deliveryRequest(
        { ...sale, msg: { ...msg, requestedAt: reserved.createdAt.toISOString() } },
        offer,
        reserved.lead,
        reserved.programId,
        reserved.answers,
        payout,
        consent,
      ),
    };
  }
}

/** Everything about the submit that its decision and its rows need. */
interface SubmitToSell {
  msg: SubmitRequestedV1;
  offer: CampaignOffer | undefined;
  offerId: string;
  groupId: string;
  lead: Lead;
  groupLead: Lead | null;
  submitted: boolean;
  mode: TestMode;
  tracking: Record<string, string>;
  consumerIp: string;
  ipSource: 'consumer' | 'caller_server';
  picked: Parameters<typeof preCheckSubmit>[1];
  shownStatement: string | null;
  partnerResultId: string | null;
  searchCerts: { formCertUrl: string | null; universalLeadCert: string | null } | null;
}

function newLead(s: SubmitToSell, lead: Lead, programId: string | null, answers: Record<string, string>): NewLead {
  const m = s.msg;
  return {
    id: m.leadId,
    kind: m.kind,
    searchId: m.searchId,
    resultId: m.resultId,
    affiliateId: m.affiliateId,
    campaignId: m.campaignId,
    offerId: s.offerId,
    apiKeyId: m.apiKeyId,
    programId,
    answers,
    lead,
    tracking: s.tracking,
    consumerIp: s.consumerIp,
    ipSource: s.ipSource,
    isTest: s.mode.isTest,
    createdAt: m.requestedAt,
    leadGroupId: s.groupId,
    originLeadId: m.originLeadId,
  };
}

function deliveryRequest(
  s: SubmitToSell,
  offer: CampaignOffer,
  lead: Lead,
  programId: string | null,
  answers: Record<string, string>,
  payout: string | null,
  consent: ConsentEvidence,
): DeliveryRequestedV1 {
  const m = s.msg;
  const buyer: DeliveryBuyer =
    offer.source === 'partner'
      ? { kind: 'partner', partner: offer.partner!, partnerResultId: s.partnerResultId ?? '', externalId: offer.externalId }
      : {
          kind: 'school',
          schoolName: offer.schoolName,
          offerName: offer.name,
          delivery: (offer.delivery ?? {}) as Record<string, unknown>,
        };
  return {
    leadId: m.leadId,
    kind: m.kind,
    affiliateId: m.affiliateId,
    campaignId: m.campaignId,
    offerId: offer.offerId,
    searchId: m.searchId,
    resultId: m.resultId,
    offerType: offer.offerType,
    payout,
    buyer,
    lead,
    tracking: s.tracking,
    consumerIp: s.consumerIp,
    programId,
    answers,
    consent: {
      tcpaConsent: consent.tcpaConsent,
      tcpaText: consent.statement,
      buttonLabel: consent.buttonLabel,
      consentedAt: consent.at,
      ip: consent.ip,
      formCertUrl: consent.formCertUrl,
      universalLeadCert: consent.universalLeadCert,
    },
    submittedAt: m.requestedAt,
  };
}

const decision = (lead: StoredLead): SubmitOutcome => ({ answer: { kind: 'decision', decision: decisionOf(lead) } });

function refused(d: Decision): SubmitOutcome {
  return {
    answer: {
      kind: 'refused',
      refusal: {
        httpStatus: d.http as 403 | 404,
        code: d.code,
        reason: d.reason,
        ...(d.error ? { error: d.error } : {}),
        ...(d.field ? { field: d.field } : {}),
      },
    },
  };
}

const forbidden = (): SubmitOutcome => refused(REFUSAL.leadAlreadySubmitted);
