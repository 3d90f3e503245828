import { randomBytes } from 'node:crypto';
import type { Answer } from '../shared/idempotency-store';
import { DEFAULT_REJECT_REASON } from '../shared/lead-answers';
import type { Markup, Outcome } from '../shared/sandbox-params';
import type { PartnerFormField } from '../partners/partner-protocol';
import { partnerResult } from '../partners/partner-results';
import type { ExchangeMatch, ExchangeQuestion } from './exchange-protocol';

const KINDS = { select: 'Dropdown', text: 'FreeText', number: 'Numeric' } as const;
export const EXCHANGE_DUPLICATE_MESSAGE = 'Applicant already on file';

/**
 * The exchange's match for one campaign code: the same school, programs,
 * questions, consent text and expiry as the sandbox partner protocol shows
 * for that id (partnerResult), in the exchange's shape. A question the
 * sandbox asks for some programs only (required_when) is listed under those
 * programs as mandatory; the others under every program, mandatory as they are.
 */
export function exchangeMatch(partner: string, requestId: string, code: string, markup: Markup = 'none'): ExchangeMatch {
  const r = partnerResult(partner, requestId, code, markup);
  return {
    CampaignCode: code,
    MatchToken: `mt_${r.partner_result_id.slice('pr_'.length)}`,
    Institution: { DisplayName: r.school.name, LogoUrl: r.school.logo_url },
    Disclosure: r.tcpa_text,
    ValidForMinutes: r.expires_in_seconds / 60,
    Payout: { Amount: '38.50', Currency: 'USD' },
    Programs: r.programs.map((p) => ({
      Code: p.value,
      Title: p.label,
      Questions: r.form_fields.filter((f) => !f.required_when || f.required_when.program_ids.includes(p.value)).map(question),
    })),
  };
}

function question(f: PartnerFormField): ExchangeQuestion {
  return {
    Key: f.name,
    Prompt: f.label,
    Kind: KINDS[f.type],
    Mandatory: f.required_when ? true : f.required,
    ...(f.options ? { Choices: f.options.map((o) => ({ Id: o.value, Text: o.label })) } : {}),
  };
}

/**
 * The exchange's answer to an application, in its own vocabulary: Approved
 * (201), Declined (200, with the reason), AlreadyOnFile (409), and a 500.
 */
export function exchangeDecision(outcome: Exclude<Outcome, 'timeout'>, name: string, reason?: string): Answer {
  switch (outcome) {
    case 'accept':
      return { status: 201, body: { Decision: 'Approved', ApplicationId: `${name}-${randomBytes(6).toString('hex')}` } };
    case 'reject':
      return { status: 200, body: { Decision: 'Declined', Reason: reason ?? DEFAULT_REJECT_REASON } };
    case 'duplicate':
      return { status: 409, body: { Decision: 'AlreadyOnFile', Reason: EXCHANGE_DUPLICATE_MESSAGE } };
    case 'error':
      return { status: 500, body: { ErrorCode: 'InternalError' } };
  }
}
