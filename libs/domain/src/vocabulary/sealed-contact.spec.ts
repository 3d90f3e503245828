import { sealedContactsIn } from './sealed-contact';

describe('sealedContactsIn', () => {
  const a = { of: 'search-1', key: 'k1', iv: 'aXY=', data: 'ZGF0YQ==' };
  const b = { of: 'lead-1', key: 'k2', iv: 'aXY=', data: 'ZGF0YQ==' };

  it('finds every sealed document of a message body, at any depth, and only those', () => {
    const body = {
      searchId: 'search-1',
      contact: a,
      partners: [{ partner: { id: 'p' }, lead: { address: { state: 'TX' } }, contact: a }],
      delivery: { nested: [{ contact: b }] },
      lookalike: { of: 'x', key: 'y', iv: 'z' },
    };
    expect(sealedContactsIn(body)).toEqual([a, a, b]);
    expect(sealedContactsIn({ ...a, extra: 'kept out' })).toEqual([a]);
  });

  it('finds none in a body without any, or in a value that is not an object', () => {
    expect(sealedContactsIn({ lead: { personal: { email: 'x@y.z' } }, contact: null })).toEqual([]);
    expect(sealedContactsIn('text')).toEqual([]);
    expect(sealedContactsIn(null)).toEqual([]);
  });
});
