import type { OfferListMapping } from '@lr/domain';
import { AskedOffer, OfferListAnswer, readOfferList } from '../offer-list/read-offer-list';

export type { DropReason, DroppedResult } from '../offer-list/read-offer-list';
export type SearchAnswer = OfferListAnswer;

/** The sandbox partner protocol's search answer (docs/sandbox.md, "Partner protocol") as a mapping: what a json partner configures. */
export const SANDBOX_OFFER_LIST: OfferListMapping = {
  list: 'results',
  search_id: 'search_id',
  external_id: 'external_id',
  partner_result_id: 'partner_result_id',
  programs: { list: 'programs', value: 'value', label: 'label' },
  questions: {
    list: 'form_fields',
    under: 'offer',
    name: 'name',
    label: 'label',
    type: 'type',
    required: 'required',
    required_when: 'required_when.program_ids',
    options: { list: 'options', value: 'value', label: 'label' },
  },
  tcpa_text: 'tcpa_text',
  school: { path: 'school', name: 'name', logo_url: 'logo_url' },
  expires_in: { path: 'expires_in_seconds', unit: 'seconds' },
};

/**
 * Reads a sandbox-protocol search answer: `results` an array, its
 * `search_id` (when present) ours, each entry read and checked by
 * readOfferList (docs/partner-adapter.md, "Validation of a search answer").
 */
export function parseSearchAnswer(body: unknown, searchId: string, asked: AskedOffer[]): SearchAnswer {
  return readOfferList(body, SANDBOX_OFFER_LIST, searchId, asked);
}
