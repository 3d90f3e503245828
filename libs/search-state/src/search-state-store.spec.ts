import { decodeSearch, orderedEntries } from './search-state-store';

describe('decodeSearch', () => {
  const meta = { searchId: 's', version: 2, order: ['b', 'a'] };
  const flat = [
    Buffer.from('r:a'),
    Buffer.from('{"n":"a"}'),
    Buffer.from('meta'),
    Buffer.from(JSON.stringify(meta)),
    Buffer.from('r:b'),
    Buffer.from('{"n":"é"}'),
  ];

  it("reads HGETALL's flat reply: the meta parsed, the entries as the bytes stored, by result id", () => {
    const s = decodeSearch(flat)!;
    expect(s.meta).toEqual(meta);
    expect(orderedEntries(s)!.map(String)).toEqual(['{"n":"é"}', '{"n":"a"}']);
  });

  it("has no state for a reply of another shape (ioredis's object form): the poll reads PostgreSQL", () => {
    expect(decodeSearch({ 'r:a': flat[1], meta: flat[3], 'r:b': flat[5] })).toBeUndefined();
  });

  it('has no state without its meta, for an empty or absent reply, or for fields that only look like entries', () => {
    expect(decodeSearch([Buffer.from('r:a'), Buffer.from('{}')])).toBeUndefined();
    expect(decodeSearch([])).toBeUndefined();
    expect(decodeSearch(null)).toBeUndefined();
    const s = decodeSearch([
      Buffer.from('r:'),
      Buffer.from('{}'),
      Buffer.from('rx'),
      Buffer.from('{}'),
      Buffer.from('meta'),
      Buffer.from(JSON.stringify(meta)),
    ])!;
    expect([...s.entries.keys()]).toEqual([]);
  });
});
