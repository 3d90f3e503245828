import { Injectable } from '@nestjs/common';
import { pendingDecision, REFUSAL, submitAnswer, SubmitAnswerBody } from '@lr/domain';
import { decisionOf, LeadRepository } from '@lr/persistence';
import type { Principal } from '../auth/principal';
import { ApiError } from '../http/api-error';
import { Dependencies } from '../http/dependencies';
import { PendingLeads } from '../submit-lead/pending-leads';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The current decision of a submit, in the submit answer's shape (an addition
 * to the contract): the stored lead, or, for a submit answered PENDING that
 * is not stored yet, PENDING. Another affiliate's lead is as unknown as a
 * missing one (404).
 */
@Injectable()
export class LeadStatus {
  constructor(
    private readonly leads: LeadRepository,
    private readonly deps: Dependencies,
    private readonly pendingLeads: PendingLeads,
  ) {}

  async run(principal: Principal, id: string): Promise<SubmitAnswerBody> {
    if (!UUID.test(id)) throw ApiError.of(REFUSAL.leadNotFound);
    const leadId = id.toLowerCase();
    const lead = await this.deps.call('postgres', () => this.leads.find(leadId));
    if (lead && lead.affiliateId === principal.affiliateId) return submitAnswer(decisionOf(lead)).body;
    // Answered PENDING, and not stored yet: it is pending, not unknown.
    const pending = !lead ? await this.pendingLeads.find(leadId, principal.affiliateId) : undefined;
    if (pending) return submitAnswer(pendingDecision(pending.leadId, pending.offerId, pending.resultId, pending.searchId, pending.isTest)).body;
    throw ApiError.of(REFUSAL.leadNotFound);
  }
}
