import { charsetOf, MAX_BODY_DEPTH, nestedDeeperThan } from './json-body';

describe('nestedDeeperThan', () => {
  const nest = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
  it('counts objects and arrays, scalars add no level', () => {
    expect(nestedDeeperThan({ a: { b: 'x' } }, 2)).toBe(false);
    expect(nestedDeeperThan({ a: { b: {} } }, 2)).toBe(true);
    expect(nestedDeeperThan('x', 0)).toBe(false);
    expect(nestedDeeperThan(nest(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(nestedDeeperThan(nest(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
  });
  it('walks 100,000 levels without overflowing the stack', () => {
    expect(nestedDeeperThan(nest(100_000), MAX_BODY_DEPTH)).toBe(true);
  });
});

describe('charsetOf', () => {
  it.each([
    ['application/json', undefined],
    ['application/json; charset=UTF-8', 'utf-8'],
    ['application/json;charset="latin1"', 'latin1'],
    ['application/json; foo=bar; Charset = utf-16', 'utf-16'],
  ])('%s → %s', (header, charset) => expect(charsetOf(header)).toBe(charset));
});
