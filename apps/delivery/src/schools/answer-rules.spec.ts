import { SANDBOX_ANSWER_RULES, type ResponseRules } from '@lr/domain';
import { readSchoolAnswer } from './answer-rules';
import { SchoolHttpError, SchoolProtocolError } from './school-errors';
import type { SchoolAnswer } from './school-http';

const json = (body: unknown, status = 200): SchoolAnswer => ({ status, json: body, isJson: true, codes: '' });
const text = (status = 200): SchoolAnswer => ({ status, json: undefined, isJson: false, codes: '' });

describe("readSchoolAnswer with a school's rules", () => {
  const rules: ResponseRules = {
    accepted: [{ path: 'status', in: ['ok', 'accepted'] }, { http_status: [201] }],
    duplicate: [{ path: 'status', in: ['duplicate'] }, { http_status: [409] }],
    rejected: { http_status: [400, 422], path: 'errors.0.code', exists: true },
    buyer_lead_id_path: 'data.id',
    reason_path: 'message',
  };
  const read = (a: SchoolAnswer) => readSchoolAnswer(a, rules, false);

  it.each<[string, SchoolAnswer, unknown]>([
    ['a path value', json({ status: 'ok', data: { id: 'nf-1' } }), { kind: 'accepted', buyerLeadId: 'nf-1' }],
    ['one of several values', json({ status: 'accepted', data: { id: 42 } }), { kind: 'accepted', buyerLeadId: '42' }],
    ['a status alone (any body)', text(201), { kind: 'accepted', buyerLeadId: null }],
    [
      'a path value, for duplicate',
      json({ status: 'duplicate', message: 'Lead exists' }),
      { kind: 'duplicate', buyerReason: 'Lead exists' },
    ],
    ['a 4xx status', json({ message: 'Already have this lead' }, 409), { kind: 'duplicate', buyerReason: 'Already have this lead' }],
    [
      'a 4xx status and a path',
      json({ errors: [{ code: 'E_ZIP' }], message: 'Zip out of area' }, 422),
      { kind: 'rejected', buyerReason: 'Zip out of area' },
    ],
    ['nothing (a 2xx JSON answer)', json({ status: 'declined', message: 'No' }), { kind: 'rejected', buyerReason: 'No' }],
    ['nothing, a JSON string', json('OK'), { kind: 'rejected', buyerReason: null }],
  ])('decides by %s', (_, answer, outcome) => {
    expect(read(answer)).toEqual(outcome);
  });

  it('tries accepted, then duplicate, then rejected', () => {
    const overlapping: ResponseRules = { accepted: { http_status: [200] }, duplicate: { path: 'dup', in: [true] } };
    expect(readSchoolAnswer(json({ dup: true }), overlapping, false).kind).toBe('accepted');
  });

  it('matches without http_status only 2xx answers', () => {
    expect(() => read(json({ status: 'ok' }, 400))).toThrow(new SchoolHttpError(400, ''));
  });

  it('compares values exactly: type and case', () => {
    const strict: ResponseRules = { accepted: { path: 'success', in: [true, 1] } };
    expect(readSchoolAnswer(json({ success: true }), strict, false).kind).toBe('accepted');
    expect(readSchoolAnswer(json({ success: 1 }), strict, false).kind).toBe('accepted');
    expect(readSchoolAnswer(json({ success: 'true' }), strict, false).kind).toBe('rejected');
    expect(readSchoolAnswer(json({ status: 'OK' }), rules, false).kind).toBe('rejected');
  });

  it('reads exists: present and not null, or absent', () => {
    const byId: ResponseRules = { accepted: { path: 'lead_id', exists: true }, duplicate: { path: 'error', exists: false } };
    expect(readSchoolAnswer(json({ lead_id: 'x' }), byId, false).kind).toBe('accepted');
    expect(readSchoolAnswer(json({ lead_id: null }), byId, false).kind).toBe('duplicate');
    expect(readSchoolAnswer(json({ error: 'E' }), byId, false).kind).toBe('rejected');
  });

  it('throws SchoolHttpError with the codes for a 4xx no rule reads', () => {
    const error = (() => {
      try {
        read({ status: 401, json: { error: 'UNAUTHORIZED' }, isJson: true, codes: 'UNAUTHORIZED' });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SchoolHttpError);
    expect(error).toMatchObject({ status: 401, notReceived: false, detail: 'HTTP 401: UNAUTHORIZED' });
  });

  it('throws SchoolProtocolError for a 2xx that is not JSON when no status rule reads it', () => {
    expect(() => read(text(200))).toThrow(new SchoolProtocolError('the answer is not JSON and no response rule reads it by its status'));
  });

  it('leaves out an id or a reason of the wrong type', () => {
    expect(read(json({ status: 'ok', data: { id: { x: 1 } } }))).toEqual({ kind: 'accepted', buyerLeadId: null });
    expect(read(json({ status: 'ok', data: { id: 'x'.repeat(201) } }))).toEqual({ kind: 'accepted', buyerLeadId: null });
    expect(read(json({ status: 'duplicate', message: ['a'] }))).toEqual({ kind: 'duplicate', buyerReason: null });
  });
});

describe('readSchoolAnswer with the sandbox protocol (strict)', () => {
  const read = (a: SchoolAnswer) => readSchoolAnswer(a, SANDBOX_ANSWER_RULES, true);

  it.each<[unknown, unknown]>([
    [
      { result: 'accepted', id: 'northfield-0123456789ab' },
      { kind: 'accepted', buyerLeadId: 'northfield-0123456789ab' },
    ],
    [{ result: 'accepted' }, { kind: 'accepted', buyerLeadId: null }],
    [
      { result: 'rejected', reason: 'Applicant does not meet the admission requirements' },
      { kind: 'rejected', buyerReason: 'Applicant does not meet the admission requirements' },
    ],
    [
      { result: 'rejected', reason: null },
      { kind: 'rejected', buyerReason: null },
    ],
    [
      { result: 'duplicate', reason: 'Lead already exists' },
      { kind: 'duplicate', buyerReason: 'Lead already exists' },
    ],
  ])('reads %j', (body, outcome) => {
    expect(read(json(body))).toEqual(outcome);
  });

  it.each<unknown>([
    null,
    [],
    'accepted',
    {},
    { result: 'maybe' },
    { result: 'accepted', id: 42 },
    { result: 'accepted', id: '' },
    { result: 'rejected', reason: 7 },
  ])('refuses %j as a SchoolProtocolError', (body) => {
    expect(() => read(json(body))).toThrow(SchoolProtocolError);
  });

  it('names the field, never the value, in the detail', () => {
    expect(() => read(json({ result: 'accepted', id: 42 }))).toThrow(
      new SchoolProtocolError("the answer's id must be a string of 1 to 200 characters"),
    );
    expect(() => read(text())).toThrow(SchoolProtocolError);
  });
});
