import { Logger } from '@nestjs/common';
import type { PartnerOfferResult, PartnerRef } from '@lr/contracts';
import {
  MappingConfigError,
  mapFields,
  partnerSearchDocument,
  partnerSubmitDocument,
  readByRules,
  SANDBOX_ANSWER_RULES,
  UnreadableAnswerError,
  type Environment,
  type PartnerSubmitSettings,
  type RuleOutcome,
} from '@lr/domain';
import type { RulesAnswer } from '@lr/http-client';
import { postJson, postJsonForAnswer } from '../http/post-json';
import { endpoint, partnerHeaders, settingsOf } from '../http/partner-request';
import { reportDropped } from '../offer-list/dropped-results';
import { readOfferList } from '../offer-list/read-offer-list';
import type { PartnerAdapter, PartnerSearchCall, PartnerSubmitCall, PartnerSubmitOutcome } from '../partner-adapter';
import { PartnerConfigError, PartnerHttpError, PartnerProtocolError } from '../partner-errors';

/**
 * A partner network's own JSON API, configured in the catalog
 * (docs/partner-adapter.md, "The json adapter"): the search body is built by
 * `search.field_map` from the search document and its answer read by
 * `search.results`; the submit body by `submit.field_map` from the submit
 * document, its answer read by `submit.response_rules`. Field maps, JSON
 * paths and response rules are libs/domain's (mapping/), shared with the
 * school json adapter; headers may name `${env:NAME}`.
 */
export class JsonPartnerAdapter implements PartnerAdapter {
  private readonly log = new Logger(JsonPartnerAdapter.name);

  constructor(private readonly env: Environment = process.env) {}

  async search(partner: PartnerRef, req: PartnerSearchCall, signal: AbortSignal): Promise<PartnerOfferResult[]> {
    const { search } = settingsOf(partner);
    if (search?.results === undefined) throw new PartnerConfigError('a json partner needs search.results (how its answer is read)');
    const doc = partnerSearchDocument({
      searchId: req.searchId,
      externalIds: [...new Set(req.offers.map((o) => o.externalId))],
      lead: req.lead,
      tracking: req.tracking,
      isTest: req.isTest,
    });
    const url = endpoint(partner.baseUrl, search.path ?? 'search');
    const headers = partnerHeaders(partner, this.env);
    const answer = await postJson(url, search.field_map ? build(doc, search.field_map) : doc, { signal, headers });
    const read = readOfferList(answer, search.results, req.searchId, req.offers);
    reportDropped(this.log, partner, req.searchId, read.dropped);
    return read.results;
  }

  async submit(partner: PartnerRef, req: PartnerSubmitCall, signal: AbortSignal): Promise<PartnerSubmitOutcome> {
    const { submit = {} } = settingsOf(partner);
    // Our lead id is the submit's Idempotency-Key, and its lead_id.
    const doc = partnerSubmitDocument({ ...req, leadId: req.idempotencyKey });
    const url = endpoint(partner.baseUrl, submit.path ?? 'submit');
    const headers = partnerHeaders(partner, this.env, { 'idempotency-key': req.idempotencyKey });
    const answer = await postJsonForAnswer(url, submit.field_map ? build(doc, submit.field_map) : doc, { signal, headers });
    const outcome = readSubmitAnswer(answer, submit);
    if (outcome.kind === 'accepted') return { kind: 'accepted', partnerLeadId: outcome.buyerLeadId };
    return { kind: outcome.kind, partnerReason: outcome.buyerReason };
  }
}

/** A partner's body from a field_map; a target the catalog check would refuse is a PartnerConfigError (nothing is sent). */
function build(doc: object, fieldMap: Record<string, string>): Record<string, unknown> {
  try {
    return mapFields(doc, fieldMap);
  } catch (e) {
    throw e instanceof MappingConfigError ? new PartnerConfigError(e.problem) : e;
  }
}

/**
 * The submit answer by the response rules (default: the sandbox protocol's).
 * As for a school's json adapter, a 2xx JSON answer no rule matches is
 * `rejected`; a 4xx no rule reads is a PartnerHttpError, and a body the rules
 * cannot read a PartnerProtocolError: we cannot tell whether the partner took the lead.
 */
function readSubmitAnswer(answer: RulesAnswer, submit: PartnerSubmitSettings): RuleOutcome {
  try {
    return readByRules(answer, submit.response_rules ?? SANDBOX_ANSWER_RULES, false);
  } catch (e) {
    if (!(e instanceof UnreadableAnswerError)) throw e;
    throw e.status === null ? new PartnerProtocolError(`the submit answer: ${e.problem}`) : new PartnerHttpError(e.status, answer.codes);
  }
}
