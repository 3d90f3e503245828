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
  SealedContact,
  statementShown,
  StoredContact,
  SUBMIT,
  TestMode,
  testMode,
} from '@lr/domain';
import { counter } from '@lr/observability';
import {
  ContactSealer,
  LeadRepository,
  NewLead,
  ReservationPlan,
  SaleLedger,
  StoredLead,
  UnreadableError,
  decisionOf,
} from '@lr/persistence';
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
    private readonly sealer: ContactSealer,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'personKeySecret'>,
  ) {}

  /**
   * The contact data is opened here, where the rules need it (the duplicate,
   * eligibility and "data of a submitted lead" checks), and sealed again under
   * the lead's own data key when it is stored (docs/security.md, Encryption
   * at rest). A submit whose contact data, or whose search's, can no longer
   * be read (the person was deleted since: a message replayed from a
   * dead-letter queue) is refused as not found, and nothing is stored.
   */
  async run(msg: SubmitRequestedV1, now = new Date()): Promise<SubmitOutcome> {
    try {
      return await this.decide(msg, now);
    } catch (e) {
      if (e instanceof UnreadableError) return refused(msg.kind === 'result_submit' ? REFUSAL.resultNotFound : REFUSAL.leadNotFound);
      throw e;
    }
  }

  private async decide(msg: SubmitRequestedV1, now: Date): Promise<SubmitOutcome> {
    const ctx = await this.leads.submitContext({
      leadId: msg.leadId,
      affiliateId: msg.affiliateId,
      resultId: msg.resultId,
      searchId: msg.searchId,
      originLeadId: msg.originLeadId,
    });
    if (ctx.stored) return ctx.stored.status === 'pending' ? this.resume(msg, ctx.stored) : decision(ctx.stored);
    const offers = await this.catalog.offersOf(msg.campaignId);
    const sent = await this.sealer.openRecord(
      {
        lead: (msg.lead ?? {}) as Lead,
        tracking: msg.tracking ?? {},
        consumerIp: msg.consumerIp ?? '',
        ipSource: msg.ipSource ?? 'consumer',
      },
      msg.contact,
    );

    let sale: SubmitToSell;
    if (msg.kind === 'result_submit') {
      // The gateway found the result; gone since (it cannot be, but the answer must not be a 500).
      if (!ctx.picked) return refused(REFUSAL.resultNotFound);
      const picked = ctx.picked;
      const search = await this.sealer.openRecord(
        { lead: picked.searchLead, tracking: picked.tracking, consumerIp: picked.consumerIp, ipSource: picked.ipSource },
        picked.contact,
      );
      const changes = msg.lead === null ? null : sent.lead;
      const lead = mergeLead(search.lead, changes);
      sale = {
        msg,
        offer: offers.find((o) => o.offerId === picked.offerId),
        offerId: picked.offerId,
        groupId: msg.searchId!,
        lead,
        changes,
        groupLead: search.lead,
        submitted: picked.submitted,
        mode: testMode(msg.isTest, picked.isTest),
        tracking: search.tracking,
        consumerIp: search.consumerIp,
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
      const origin = ctx.origin ? await this.openLead(ctx.origin.lead, ctx.origin.contact) : null;
      sale = {
        msg,
        offer,
        offerId: offer.offerId,
        groupId: ctx.origin?.leadGroupId ?? msg.leadId,
        lead: sent.lead,
        changes: sent.lead,
        groupLead: origin,
        submitted: ctx.origin !== null,
        mode: testMode(msg.isTest, ctx.origin?.isTest),
        tracking: sent.tracking,
        consumerIp: sent.consumerIp,
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
    let sold: NewLead | null = null;
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
      async (facts): Promise<ReservationPlan> => {
        // What the group holds now decides: another submit of the lead may have changed its data since it was read.
        const groupLead = facts.groupLead ? await this.openLead(facts.groupLead, facts.groupContact) : null;
        const lead = msg.kind === 'result_submit' && groupLead ? mergeLead(groupLead, sale.changes) : sale.lead;
        if (facts.submitted && groupLead && !sameLead(groupLead, lead)) return { kind: 'forbidden' };
        const keys = sameLead(lead, sale.lead) ? lockedKeys : sale.mode.personKeys(this.config.personKeySecret, lead);
        const locked = new Set(lockedKeys.map((k) => `${k.type}:${k.hash}`));
        if (keys.some((k) => !locked.has(`${k.type}:${k.hash}`))) return { kind: 'lock-keys', keys };
        const refusal = saleDecision(facts);
        suppressed = facts.suppressed;
        if (refusal) return { kind: 'refuse', decision: refusal };
        sold = await this.sealedLead(sale, lead, programId, answers);
        return {
          kind: 'sell',
          sale: {
            lead: sold,
            consent: this.consent(sale),
            consentLedger: this.consentLedger(sale, lead),
            offerId: offer.offerId,
            schoolId: offer.schoolId,
            offerType: offer.offerType,
            payout,
            price: offer.price,
            caps,
            keys,
            search:
              msg.kind === 'result_submit'
                ? { id: msg.searchId!, ...(await this.searchLead(sale, facts.groupLead, groupLead, lead)), keys }
                : null,
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
            sold!,
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
    const whole = newLead(sale, sale.lead, programId ?? sale.msg.programId, answers, null);
    const kept = suppressed
      ? { ...whole, ...eraseStoredContact(whole, contactValuesOf([whole.lead])) }
      : await this.sealedLead(sale, sale.lead, programId ?? sale.msg.programId, answers);
    const stored = await this.leads.storeDecided(kept, d, this.consent(sale), this.consentLedger(sale, sale.lead));
    decided.inc({ code: stored.code ?? d.code });
    return decision(stored);
  }

  /** The lead's row: its readable part, and its contact data sealed under the lead's own data key. */
  private async sealedLead(sale: SubmitToSell, lead: Lead, programId: string | null, answers: Record<string, string>): Promise<NewLead> {
    const record: StoredContact = { lead, tracking: sale.tracking, consumerIp: sale.consumerIp, ipSource: sale.ipSource };
    const { readable, contact } = await this.sealer.sealRecord(sale.msg.leadId, record, new Date(sale.msg.requestedAt));
    return { ...newLead(sale, readable.lead, programId, answers, contact), tracking: readable.tracking, consumerIp: readable.consumerIp };
  }

  /**
   * What a result submit writes to its search's lead: nothing new when the
   * submit changed none of its data (the stored readable part, the sealed
   * part kept), else the merged lead sealed again under a new key of the
   * search's.
   */
  private async searchLead(
    sale: SubmitToSell,
    stored: Lead | null,
    opened: Lead | null,
    lead: Lead,
  ): Promise<{ lead: Lead; contact: SealedContact | null }> {
    if (stored && opened && sameLead(opened, lead)) return { lead: stored, contact: null };
    const record: StoredContact = { lead, tracking: sale.tracking, consumerIp: sale.consumerIp, ipSource: sale.ipSource };
    const { readable, contact } = await this.sealer.sealRecord(sale.msg.searchId!, record, new Date(sale.msg.requestedAt));
    return { lead: readable.lead, contact };
  }

  /** A stored lead document opened (its readable part with its sealed part). */
  private async openLead(lead: Lead, contact: SealedContact | null): Promise<Lead> {
    return (await this.sealer.openRecord({ lead, tracking: {}, consumerIp: '', ipSource: 'consumer' }, contact)).lead;
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
      changes: null,
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
        reserved,
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
  /** The lead to sell, whole (opened). */
  lead: Lead;
  /** The fields the submit sent (a result submit's over its search's; a direct post's whole lead), opened. */
  changes: Lead | null;
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

function newLead(
  s: SubmitToSell,
  lead: Lead,
  programId: string | null,
  answers: Record<string, string>,
  contact: SealedContact | null,
): NewLead {
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
    contact,
    ipSource: s.ipSource,
    isTest: s.mode.isTest,
    createdAt: m.requestedAt,
    leadGroupId: s.groupId,
    originLeadId: m.originLeadId,
  };
}

/**
 * What delivery is sent: the lead's row as stored (its readable part and its
 * sealed contact data, which delivery or partner-adapter opens for the call;
 * the consent's IP is in the sealed part too).
 */
function deliveryRequest(
  s: SubmitToSell,
  offer: CampaignOffer,
  row: Pick<NewLead, 'lead' | 'tracking' | 'consumerIp' | 'contact'>,
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
    lead: row.lead,
    tracking: row.tracking,
    consumerIp: row.consumerIp,
    contact: row.contact,
    programId,
    answers,
    consent: {
      tcpaConsent: consent.tcpaConsent,
      tcpaText: consent.statement,
      buttonLabel: consent.buttonLabel,
      consentedAt: consent.at,
      ip: row.contact ? '' : consent.ip,
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
