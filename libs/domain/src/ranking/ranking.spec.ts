import fc from 'fast-check';
import { compareCandidates, mergeResults, type RankCandidate } from './ranking';

function cand(offerId: string, over: Partial<RankCandidate> = {}): RankCandidate {
  return { offerId, schoolId: `school-${offerId}`, priority: 0, source: 'own', name: `Offer ${offerId}`, ...over };
}
const ids = (list: RankCandidate[]) => list.map((c) => c.offerId);

describe('compareCandidates', () => {
  it('puts higher priority first, whatever the payout', () => {
    const a = cand('a', { priority: 5 });
    const b = cand('b', { priority: 10, payout: 1 });
    const c = cand('c', { priority: 1, payout: 100 });
    expect(ids([a, c, b].sort(compareCandidates))).toEqual(['b', 'a', 'c']);
  });

  it('then higher payout, with no payout below any amount (zero included)', () => {
    const list = [cand('none'), cand('zero', { payout: 0 }), cand('high', { payout: 30 }), cand('low', { payout: 22.5 })];
    expect(ids(list.sort(compareCandidates))).toEqual(['high', 'low', 'zero', 'none']);
  });

  it('then own before partner, then name, then offer id', () => {
    const list = [
      cand('p', { source: 'partner', name: 'Alpha' }),
      cand('z', { name: 'beta' }),
      cand('y', { name: 'Beta' }),
      cand('x', { name: 'Alpha' }),
      cand('w', { name: 'Alpha' }),
    ];
    expect(ids(list.sort(compareCandidates))).toEqual(['w', 'x', 'z', 'y', 'p']);
  });

  it('is zero only for the same offer id', () => {
    expect(compareCandidates(cand('a'), cand('a'))).toBe(0);
    expect(compareCandidates(cand('a', { name: 'n' }), cand('b', { name: 'n' }))).toBeLessThan(0);
  });
});

describe('mergeResults', () => {
  it('adds the incoming candidates to nothing shown yet, best first', () => {
    const incoming = [cand('a', { priority: 1 }), cand('b', { priority: 3 }), cand('c', { priority: 2 })];
    const res = mergeResults([], incoming, 'live');
    expect(ids(res.added)).toEqual(['b', 'c', 'a']);
    expect(ids(res.ordered)).toEqual(['b', 'c', 'a']);
  });

  it('live: adds only the best of one school arriving twice in a batch', () => {
    const incoming = [
      cand('low', { schoolId: 's1', priority: 1 }),
      cand('high', { schoolId: 's1', priority: 5 }),
      cand('other', { schoolId: 's2', priority: 3 }),
    ];
    const res = mergeResults([], incoming, 'live');
    expect(ids(res.added)).toEqual(['high', 'other']);
    expect(ids(res.ordered)).toEqual(['high', 'other']);
  });

  it('test: adds every candidate of one school', () => {
    const incoming = [cand('low', { schoolId: 's1', priority: 1 }), cand('high', { schoolId: 's1', priority: 5 })];
    expect(ids(mergeResults([], incoming, 'test').ordered)).toEqual(['high', 'low']);
  });

  it('live: drops a candidate of a school already shown, even a better one', () => {
    const shown = [cand('first', { schoolId: 's1', priority: 1 })];
    const incoming = [cand('better', { schoolId: 's1', priority: 9 }), cand('new', { schoolId: 's2' })];
    const res = mergeResults(shown, incoming, 'live');
    expect(ids(res.added)).toEqual(['new']);
    expect(ids(res.ordered)).toEqual(['first', 'new']);
  });

  it('test: adds a candidate of a school already shown', () => {
    const shown = [cand('first', { schoolId: 's1', priority: 1 })];
    const res = mergeResults(shown, [cand('better', { schoolId: 's1', priority: 9 })], 'test');
    expect(ids(res.added)).toEqual(['better']);
    expect(ids(res.ordered)).toEqual(['better', 'first']);
  });

  it.each(['live', 'test'] as const)('%s: drops an offer already shown or repeated in the batch', (mode) => {
    const shown = [cand('a', { schoolId: 's1' })];
    const incoming = [cand('a', { schoolId: 's1', priority: 9 }), cand('b', { schoolId: 's2' }), cand('b', { schoolId: 's2' })];
    const res = mergeResults(shown, incoming, mode);
    expect(ids(res.added)).toEqual(['b']);
    expect(ids(res.ordered)).toEqual(['a', 'b']);
  });

  it('keeps every shown result and orders the whole list the same way on every poll', () => {
    const shown = [cand('a', { priority: 1 }), cand('b', { priority: 4 })];
    const incoming = [cand('c', { priority: 2, source: 'partner' }), cand('d', { priority: 4, payout: 10 })];
    const first = mergeResults(shown, incoming, 'live');
    expect(ids(first.ordered)).toEqual(['d', 'b', 'c', 'a']);
    const reversed = mergeResults([...shown].reverse(), [...incoming].reverse(), 'live');
    expect(ids(reversed.ordered)).toEqual(ids(first.ordered));
    const next = mergeResults(first.ordered, [], 'live');
    expect(next.added).toEqual([]);
    expect(next.ordered).toEqual(first.ordered);
  });

  it('does not change its inputs', () => {
    const shown = [cand('b', { priority: 1 }), cand('a', { priority: 2 })];
    const incoming = [cand('d', { priority: 0 }), cand('c', { priority: 3 })];
    const [shownCopy, incomingCopy] = [structuredClone(shown), structuredClone(incoming)];
    mergeResults(shown, incoming, 'live');
    expect(shown).toEqual(shownCopy);
    expect(incoming).toEqual(incomingCopy);
  });
});

describe('mergeResults properties', () => {
  const candidate = fc
    .record({
      offerId: fc.constantFrom('o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7', 'o8'),
      schoolId: fc.constantFrom('s1', 's2', 's3', 's4'),
      priority: fc.integer({ min: 0, max: 3 }),
      payout: fc.option(fc.constantFrom(0, 10, 22.5), { nil: undefined }),
      source: fc.constantFrom('own' as const, 'partner' as const),
      name: fc.constantFrom('Alpha', 'beta', 'Beta'),
    })
    .map(({ payout, ...rest }): RankCandidate => ({ ...rest, ...(payout !== undefined && { payout }) }));

  /** A list of results as mergeResults itself yields them in live mode: distinct offers and schools. */
  const liveShown = fc.array(candidate, { maxLength: 6 }).map((list) => mergeResults([], list, 'live').ordered);

  it('live: never two entries of one school, and every shown result stays', () => {
    fc.assert(
      fc.property(liveShown, fc.array(candidate, { maxLength: 10 }), (shown, incoming) => {
        const { added, ordered } = mergeResults(shown, incoming, 'live');
        const schools = ordered.map((c) => c.schoolId);
        expect(new Set(schools).size).toBe(schools.length);
        for (const s of shown) expect(ordered).toContain(s);
        expect(ordered).toHaveLength(shown.length + added.length);
      }),
    );
  });

  it('both modes: ordered is sorted best first and never repeats an offer', () => {
    fc.assert(
      fc.property(
        liveShown,
        fc.array(candidate, { maxLength: 10 }),
        fc.constantFrom('live' as const, 'test' as const),
        (shown, incoming, mode) => {
          const { ordered } = mergeResults(shown, incoming, mode);
          for (let i = 1; i < ordered.length; i++) expect(compareCandidates(ordered[i - 1], ordered[i])).toBeLessThanOrEqual(0);
          expect(new Set(ids(ordered)).size).toBe(ordered.length);
        },
      ),
    );
  });
});
