import fc from 'fast-check';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { type Lead, OFFER_TYPES } from '@lr/domain';
import {
  answerOf,
  capSlot,
  mediumDataSource,
  mediumRedis,
  OfferSpec,
  orchestrator,
  person,
  searchRequest,
  searchRow,
  soldToPerson,
  useCap,
  world,
} from '../../../../test/support/medium-world';
import { explainLead } from './lead-explain';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';

/**
 * Property: for generated catalogs and leads, the real search (StartSearch
 * on PostgreSQL) shows some offers and stores why not the others; `lead
 * explain`, asking the rules again through libs/domain on what is stored and
 * read now, comes to the same verdict for every offer: shown or not, and the
 * same reason.
 */
describe('lead explain agrees with the search (property)', () => {
  let ds: DataSource;
  let redis: Redis;

  beforeAll(async () => {
    ds = await mediumDataSource(2);
    redis = mediumRedis();
  });

  afterAll(async () => {
    redis.disconnect();
    await ds.destroy();
  });

  const STATES = ['TX', 'CA', 'NV'];
  const LEVELS = ['associate', 'bachelor', 'master'];
  const subset = (of: string[]) => fc.subarray(of, { minLength: 1 });
  const rules = fc.record(
    { states: subset(STATES), min_age: fc.constantFrom(18, 30, 40), education_levels: subset(LEVELS) },
    { requiredKeys: [] },
  );
  const offer = fc.record({
    school: fc.constantFrom('A', 'B', 'C'),
    partner: fc.option(fc.constant('p'), { freq: 5 }),
    priority: fc.integer({ min: 0, max: 3 }),
    payout: fc.option(fc.constantFrom(5, 10, 12.5)),
    status: fc.constantFrom<'active' | 'paused'>('active', 'active', 'active', 'active', 'paused'),
    offerType: fc.constantFrom(...OFFER_TYPES),
    eligibility: rules,
    programs: fc.array(fc.record({ education_levels: fc.option(subset(LEVELS)) }), { minLength: 1, maxLength: 2 }),
    dayCap: fc.option(fc.record({ limit: fc.integer({ min: 0, max: 2 }), used: fc.integer({ min: 0, max: 2 }) })),
    soldDaysAgo: fc.option(fc.constantFrom(2, 40)),
  });
  const lead = fc.record({
    state: fc.constantFrom(...STATES),
    birthYear: fc.constantFrom(1960, 1990, 2004),
    level: fc.constantFrom(...LEVELS),
    isTest: fc.constantFrom(false, false, false, true),
  });

  it('explain’s verdict for every offer is what the search showed and stored', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(offer, { minLength: 1, maxLength: 6 }), lead, async (offers, l) => {
        const specs: Record<string, OfferSpec> = {};
        offers.forEach((o, i) => {
          specs[`o${i}`] = {
            school: o.school,
            ...(o.partner ? { partner: o.partner } : {}),
            priority: o.priority,
            payout: o.payout,
            status: o.status,
            offerType: o.offerType,
            eligibility: o.eligibility,
            ...(o.partner
              ? {}
              : {
                  programs: o.programs.map((p, j) => ({
                    value: `p${j}`,
                    label: `Program ${j}`,
                    eligibility: p.education_levels ? { education_levels: p.education_levels } : {},
                  })),
                }),
            ...(o.dayCap ? { caps: [{ period: 'day', limit: o.dayCap.limit }] } : {}),
          };
        });
        const w = await world(ds, specs);
        const base = person();
        const who: Lead = {
          ...base,
          personal: { ...base.personal, date_of_birth: `${l.birthYear}-04-12` },
          address: { ...base.address, state: l.state },
          education: { education_level: l.level },
        };
        const now = new Date();
        for (const [i, o] of offers.entries()) {
          const key = `o${i}`;
          if (o.dayCap) await useCap(ds, capSlot(w.ids.offers[key], null, 'day', now), o.dayCap.used);
          if (o.soldDaysAgo !== null) await soldToPerson(ds, w, who, key, `${o.soldDaysAgo} days`);
        }
        const msg = searchRequest(w, who, { isTest: l.isTest });
        const answer = answerOf((await orchestrator(ds, redis).start.run(msg)).body);
        const stored = (await searchRow(ds, msg.searchId))!.offer_decisions;
        const explained = (await explainLead(ds, msg.searchId, TEST_PERSON_KEY_SECRET))!;

        const shownInAnswer = new Set(answer.offers.map((r) => r.offer.id));
        expect(explained.search!.offers.map((o) => o.offer.id).sort()).toEqual(Object.values(w.ids.offers).sort());
        for (const o of explained.search!.offers) {
          const actual = {
            shown: shownInAnswer.has(o.offer.id),
            reason: stored[o.offer.id].shown ? null : (stored[o.offer.id].reason ?? null),
          };
          expect([o.offer.id, { shown: o.verdict.shown, reason: o.verdict.reason }]).toEqual([o.offer.id, actual]);
          expect([o.offer.id, o.agrees]).toEqual([o.offer.id, true]);
        }
      }),
      { numRuns: 30 },
    );
  });
});
