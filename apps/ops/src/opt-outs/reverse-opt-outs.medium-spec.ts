import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Lead, optOutKeysOf, optOutRecord, OptOutRecord } from '@lr/domain';
import { OptOuts } from '@lr/persistence';
import {
  decideSubmit,
  freshPerson,
  mediumDataSource,
  resultSubmit,
  storeSearch,
  submitWorld,
  SubmitWorld,
} from '../../../../test/support/medium-world';
import { suppressionAuditOf, suppressionHolderOf } from '../../../../test/support/stored-rows';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';
import { reverseOptOuts } from './reverse-opt-outs';

/**
 * `ops optout list --key` and `optout reverse` on the real PostgreSQL: an
 * affiliate's opt-outs attributed to its API key, and reversing them
 * (docs/opt-outs.md, "Reversing opt-outs"): the suppression lifted unless
 * another opt-out of the person holds it, audited, idempotent and safe under
 * concurrency. Their notices: apps/delivery revocations.medium-spec.ts.
 */
describe('optout list and reverse (medium)', () => {
  let ds: DataSource;
  let optOuts: OptOuts;
  let world: SubmitWorld;
  const RELAY = `medium-reverse-${randomUUID().slice(0, 8)}`;
  const ACTOR = 'operator:medium';

  beforeAll(async () => {
    ds = await mediumDataSource(8);
    optOuts = new OptOuts(ds);
    world = await submitWorld(ds, [{}]);
  });
  afterAll(async () => {
    await ds?.destroy();
  });

  /** An opt-out as the gateway records one sent with `apiKeyId` of the world's affiliate. */
  const byKey = (
    person: Lead,
    apiKeyId: string | null = world.apiKeyId,
    receivedAt = new Date(),
    raw: 'email' | 'phone' | 'both' = 'both',
  ): OptOutRecord =>
    optOutRecord({
      id: randomUUID(),
      receivedAt,
      source: 'affiliate',
      affiliateId: world.affiliateId,
      apiKeyId,
      reference: null,
      keys: optOutKeysOf(TEST_PERSON_KEY_SECRET, {
        email: raw === 'phone' ? undefined : person.personal!.email,
        phone: raw === 'email' ? undefined : person.personal!.phone,
      }),
      actor: `affiliate:${world.affiliateId}`,
      relay: RELAY,
    });
  const recorded = async (o: OptOutRecord) => (await optOuts.record(o), o);

  /** Whether the world's offer may be sold to the person now (a reservation is made when it may). */
  async function sellable(person: Lead): Promise<boolean> {
    const search = await storeSearch(world, person);
    const outcome = await decideSubmit(ds).run(resultSubmit(world, search, world.offerIds[0]));
    if ('deliver' in outcome) return true;
    expect(outcome.answer).toMatchObject({ decision: { code: 'NOT_ELIGIBLE', reason: 'Not eligible' } });
    return false;
  }
  const emailHash = (p: Lead) => optOutKeysOf(TEST_PERSON_KEY_SECRET, { email: p.personal!.email })[0].hash;
  const reverse = (ids: string[], reason = 'ticket 7: a competitor, not the consumer') => reverseOptOuts(optOuts, { ids }, ACTOR, reason);

  it("an affiliate's opt-outs are listed by the API key that sent them, with the key and affiliate, within a time range", async () => {
    const key = randomUUID();
    const [early, late] = [
      await recorded(byKey(freshPerson(), key, new Date('2026-11-20T10:00:00Z'))),
      await recorded(byKey(freshPerson(), key, new Date('2026-11-21T10:00:00Z'), 'email')),
    ];
    await recorded(byKey(freshPerson(), randomUUID()));

    const all = await optOuts.byKey(key, null, null, 100);
    expect(all.map((o) => [o.id, o.apiKeyId, o.affiliateId, o.source, o.keys])).toEqual([
      [early.id, key, world.affiliateId, 'affiliate', ['email', 'phone']],
      [late.id, key, world.affiliateId, 'affiliate', ['email']],
    ]);
    expect(all[0]).toMatchObject({ keysHeld: 2, reversal: null, notices: { sent: 0, open: 0, cancelled: 0 } });
    expect((await optOuts.byKey(key, new Date('2026-11-21T00:00:00Z'), null, 100)).map((o) => o.id)).toEqual([late.id]);
    expect((await optOuts.byKey(key, null, new Date('2026-11-21T00:00:00Z'), 100)).map((o) => o.id)).toEqual([early.id]);
  });

  it('reversing with a reason lifts the suppression (the person can be sold again), audited with who and why; a second reversal changes nothing', async () => {
    const person = freshPerson();
    const o = await recorded(byKey(person));
    expect(await sellable(person)).toBe(false);

    const report = await reverse([o.id]);

    expect(report).toMatchObject({ reversed: [o.id], refused: [], keysLifted: 2, keysKept: 0 });
    expect(await sellable(person)).toBe(true);
    expect(await suppressionAuditOf(ds, emailHash(person))).toEqual([
      { action: 'suppress', actor: `affiliate:${world.affiliateId}`, reason: null, opt_out_id: o.id },
      { action: 'lift', actor: ACTOR, reason: 'ticket 7: a competitor, not the consumer', opt_out_id: o.id },
    ]);
    const [listed] = await optOuts.byIds([o.id]);
    expect(listed.reversal).toEqual({ at: expect.any(Date), by: ACTOR, reason: 'ticket 7: a competitor, not the consumer' });
    expect(listed.keysHeld).toBe(0);

    expect(await reverse([o.id], 'again')).toMatchObject({ reversed: [], refused: [{ id: o.id, why: 'already_reversed' }], keysLifted: 0 });
    expect(await suppressionAuditOf(ds, emailHash(person))).toHaveLength(2);
    expect((await optOuts.byIds([o.id]))[0].reversal?.reason).toBe('ticket 7: a competitor, not the consumer');
  });

  it('two reversals of one opt-out racing: one reverses it, the other finds it reversed; each key is lifted once', async () => {
    const person = freshPerson();
    const o = await recorded(byKey(person));

    const [a, b] = await Promise.all([reverse([o.id], 'first'), reverse([o.id], 'second')]);

    expect([a.reversed, b.reversed].flat()).toEqual([o.id]);
    expect(a.keysLifted + b.keysLifted).toBe(2);
    expect([...a.refused, ...b.refused]).toEqual([{ id: o.id, why: 'already_reversed' }]);
    expect((await suppressionAuditOf(ds, emailHash(person))).filter((x) => x.action === 'lift')).toHaveLength(1);
    expect(await sellable(person)).toBe(true);
  });

  it('reversals of two opt-outs of one person racing: both are reversed and the person is no longer suppressed', async () => {
    for (let i = 0; i < 4; i++) {
      const person = freshPerson();
      const first = await recorded(byKey(person));
      const second = await recorded(byKey(person, randomUUID()));

      const [a, b] = await Promise.all([reverse([first.id]), reverse([second.id])]);

      expect([...a.reversed, ...b.reversed].sort()).toEqual([first.id, second.id].sort());
      expect(a.keysLifted + b.keysLifted).toBe(2);
      expect(await suppressionHolderOf(ds, emailHash(person))).toBeNull();
      expect(await sellable(person)).toBe(true);
    }
  });

  it('a reversal racing a new opt-out of the same person: the person stays suppressed, held by the new one', async () => {
    for (let i = 0; i < 4; i++) {
      const person = freshPerson();
      const hostile = await recorded(byKey(person, randomUUID()));
      const own = byKey(person, randomUUID(), new Date(), 'email');

      await Promise.all([reverse([hostile.id]), optOuts.record(own)]);

      expect(await suppressionHolderOf(ds, emailHash(person))).toBe(own.id);
      expect(await sellable(person)).toBe(false);
    }
  });

  it("by key and time range: only that key's opt-outs received in it; a deletion request's opt-out and an unknown id are refused", async () => {
    const key = randomUUID();
    const inside = await recorded(byKey(freshPerson(), key, new Date('2026-11-22T10:00:00Z')));
    const before = await recorded(byKey(freshPerson(), key, new Date('2026-11-21T10:00:00Z')));
    const otherKey = await recorded(byKey(freshPerson(), randomUUID(), new Date('2026-11-22T10:00:00Z')));

    const report = await reverseOptOuts(optOuts, { apiKeyId: key, since: new Date('2026-11-22T00:00:00Z'), until: null }, ACTOR, 'abuse');

    expect(report.reversed).toEqual([inside.id]);
    const state = await optOuts.byIds([inside.id, before.id, otherKey.id]);
    // Oldest first; inside and otherKey were received at the same instant, so their order is their ids'.
    expect(state[0].id).toBe(before.id);
    expect(Object.fromEntries(state.map((o) => [o.id, o.reversal !== null]))).toEqual({
      [before.id]: false,
      [inside.id]: true,
      [otherKey.id]: false,
    });

    const deletion = await recorded({ ...byKey(freshPerson(), null), source: 'deletion', affiliateId: null, actor: 'operator' });
    const unknown = randomUUID();
    expect(await reverse([deletion.id, unknown])).toMatchObject({
      reversed: [],
      refused: [
        { id: deletion.id, why: 'not_reversible' },
        { id: unknown, why: 'unknown' },
      ],
    });
  });
});
