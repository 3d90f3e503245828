import { PartnerProtocolError } from '../partner-errors';
import { parseSubmitAnswer } from './submit-answer';

describe('parseSubmitAnswer', () => {
  it.each<[unknown, unknown]>([
    [
      { result: 'accepted', id: 'alpha-0123456789ab' },
      { kind: 'accepted', partnerLeadId: 'alpha-0123456789ab' },
    ],
    [{ result: 'accepted' }, { kind: 'accepted', partnerLeadId: null }],
    [
      { result: 'rejected', reason: 'Not eligible' },
      { kind: 'rejected', partnerReason: 'Not eligible' },
    ],
    [{ result: 'rejected' }, { kind: 'rejected', partnerReason: null }],
    [{ result: 'duplicate', reason: 'Lead already exists' }, { kind: 'duplicate' }],
  ])('reads %j', (body, outcome) => {
    expect(parseSubmitAnswer(body)).toEqual(outcome);
  });

  it.each<unknown>([null, [], 'accepted', {}, { result: 'maybe' }, { result: 'accepted', id: 42 }, { result: 'rejected', reason: '' }])(
    'refuses %j as a protocol error',
    (body) => {
      expect(() => parseSubmitAnswer(body)).toThrow(PartnerProtocolError);
    },
  );
});
