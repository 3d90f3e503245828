import { Injectable } from '@nestjs/common';
import { returnAnswer, ReturnAnswerBody } from '@lr/domain';
import { LeadReturns } from '@lr/persistence';
import { returnLead } from '@lr/use-cases';
import type { BuyerPrincipal } from '../auth/principal';
import { ApiError } from '../http/api-error';
import { Dependencies } from '../http/dependencies';
import { parseReturnRequest } from './parse-return-request';

/**
 * A school returns a lead it bought (docs/returns.md): the body is checked
 * (400 naming the field), then the return is decided on the facts and booked
 * in one statement (@lr/use-cases returnLead). A lead the school did not buy
 * is 404 whoever's it is; returned before or past the window 409; a reason
 * that is not one of the offer's 400 naming `reason`. PostgreSQL unavailable:
 * 503, and a return that committed before its answer was lost reads 409
 * `ALREADY_RETURNED` on the retry, never a second effect.
 */
@Injectable()
export class ReturnLead {
  constructor(
    private readonly returns: LeadReturns,
    private readonly deps: Dependencies,
  ) {}

  async run(buyer: BuyerPrincipal, body: unknown): Promise<ReturnAnswerBody> {
    const request = parseReturnRequest(body);
    const outcome = await this.deps.call('postgres', () =>
      returnLead(this.returns, { ...request, schoolId: buyer.schoolId, source: 'api', apiKeyId: buyer.keyId }),
    );
    if (outcome.kind === 'refused') throw ApiError.of(outcome.decision);
    return returnAnswer(request.leadId, outcome);
  }
}
