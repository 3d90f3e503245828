import { Injectable } from '@nestjs/common';
import { leadStatusAnswer, LeadStatusBody, pendingDecision, REFUSAL } from '@lr/domain';
import { decisionOf, LeadRepository } from '@lr/persistence';
import type { Principal } from '../auth/principal';
import { ApiError } from '../http/api-error';
import { Dependencies } from '../http/dependencies';
import { PendingLeads } from '../submit-lead/pending-leads';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The current decision of a submit, in the submit answer's shape (an addition
 * to the contract): the stored lead, or, for a submit answered PENDING that
 * is not stored yet, PENDING; with `returned`, the school's return of the
 * lead or null (docs/returns.md). Another affiliate's lead is as unknown as a
 * missing one (404).
 */
@Injectable()
export class LeadStatus {
  constructor(
    private readonly leads: LeadRepository,
    private readonly deps: Dependencies,
    private readonly pendingLeads: PendingLeads,
  ) {}

  async run(principal: Principal, id: string): Promise<LeadStatusBody> {
    if (!UUID.test(id)) throw ApiError.of(REFUSAL.leadNotFound);
    const leadId = id.toLowerCase();
    const found = await this.deps.call('postgres', () => this.leads.findWithReturn(leadId));
    if (found && found.lead.affiliateId === principal.affiliateId) return leadStatusAnswer(decisionOf(found.lead), found.returned);
    // Answered PENDING, and not stored yet: it is pending, not unknown.
    const pending = !found ? await this.pendingLeads.find(leadId, principal.affiliateId) : undefined;
    if (pending)
      return leadStatusAnswer(pendingDecision(pending.leadId, pending.offerId, pending.resultId, pending.searchId, pending.isTest), null);
    throw ApiError.of(REFUSAL.leadNotFound);
  }
}
