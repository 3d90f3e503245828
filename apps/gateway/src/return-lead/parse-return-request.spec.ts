import { ApiError } from '../http/api-error';
import { parseReturnRequest } from './parse-return-request';

const LEAD = '7C0D7A4E-0000-4000-8000-00000000ABCD';

function refusal(body: unknown): { status: number; code: string; field?: unknown; reason: string } {
  try {
    parseReturnRequest(body);
  } catch (e) {
    if (e instanceof ApiError) return { status: e.httpStatus, code: e.code, field: e.extra.field, reason: e.reason };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('parseReturnRequest', () => {
  it('reads the lead id (lower-cased), the reason code and the optional note', () => {
    expect(parseReturnRequest({ svc_lead_id: LEAD, reason: 'wrong_number' })).toEqual({
      leadId: LEAD.toLowerCase(),
      reason: 'wrong_number',
      note: null,
    });
    expect(parseReturnRequest({ svc_lead_id: LEAD, reason: 'wrong_number', note: 'called twice', extra: 1 }).note).toBe('called twice');
    expect(parseReturnRequest({ svc_lead_id: LEAD, reason: 'x', note: null }).note).toBeNull();
  });

  it.each<[string, unknown, { status: number; code: string; field?: string; reason: string }]>([
    [
      'no svc_lead_id',
      { reason: 'wrong_number' },
      { status: 400, code: 'REQUIRED_FIELD_MISSING', field: 'svc_lead_id', reason: 'Missing field svc_lead_id' },
    ],
    ['no reason', { svc_lead_id: LEAD }, { status: 400, code: 'REQUIRED_FIELD_MISSING', field: 'reason', reason: 'Missing field reason' }],
    [
      'svc_lead_id not a UUID',
      { svc_lead_id: 'abc', reason: 'x' },
      { status: 400, code: 'INVALID_FIELD', field: 'svc_lead_id', reason: 'svc_lead_id must be a UUID' },
    ],
    [
      'reason not a string',
      { svc_lead_id: LEAD, reason: 7 },
      { status: 400, code: 'INVALID_FIELD', field: 'reason', reason: 'reason must be a string' },
    ],
    [
      'an empty reason',
      { svc_lead_id: LEAD, reason: '' },
      { status: 400, code: 'INVALID_FIELD', field: 'reason', reason: 'reason must not be empty' },
    ],
    [
      'a note over 500 characters',
      { svc_lead_id: LEAD, reason: 'x', note: 'n'.repeat(501) },
      { status: 400, code: 'INVALID_FIELD', field: 'note', reason: 'note must be at most 500 characters' },
    ],
    [
      'a note not a string',
      { svc_lead_id: LEAD, reason: 'x', note: 5 },
      { status: 400, code: 'INVALID_FIELD', field: 'note', reason: 'note must be a string' },
    ],
    [
      'a body that is not an object',
      ['x'],
      { status: 400, code: 'MALFORMED_REQUEST', field: undefined, reason: 'Request body must be a JSON object' },
    ],
  ])('refuses %s, naming the field', (_label, body, expected) => {
    expect(refusal(body)).toEqual(expected);
  });
});
