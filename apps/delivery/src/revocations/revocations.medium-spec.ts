import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { Lead, optOutKeysOf, optOutRecord, OptOutRecord } from '@lr/domain';
import { LeadRepository, OptOuts, SaleLedger, SearchRepository } from '@lr/persistence';
import { SearchStatePublisher } from '@lr/search-state';
import {
  decideSubmit,
  fakeSchool,
  freshPerson,
  keyStoreSealer,
  mediumDataSource,
  mediumRedis,
  resultSubmit,
  storeSearch,
  submitWorld,
  SubmitWorld,
} from '../../../../test/support/medium-world';
import { BuyerCalls } from '../deliver-lead/buyer-calls';
import { DeliverLead } from '../deliver-lead/deliver-lead.usecase';
import { NoticeNotAcknowledgedError, SendRevocation } from './send-revocation.usecase';
import {
  lapseRevocationClaim,
  revocationNoticesOf,
  storedContactOf,
  suppressionAuditOf,
  suppressionHolderOf,
} from '../../../../test/support/stored-rows';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';

/**
 * Opt-outs end to end below the broker (medium tier: real PostgreSQL and
 * Redis, schools on 127.0.0.1): the suppression the checks decide on, the
 * notices an opt-out writes for every buyer that accepted the person, and
 * their sending, acknowledging and retrying.
 */

let ds: DataSource;
let redis: Redis;
let school: Awaited<ReturnType<typeof fakeSchool>>;
let delivery: DeliverLead;
let optOuts: OptOuts;
let send: SendRevocation;

beforeAll(async () => {
  ds = await mediumDataSource(16);
  redis = mediumRedis();
  school = await fakeSchool();
  delivery = new DeliverLead(
    new SaleLedger(ds),
    new LeadRepository(ds),
    new BuyerCalls(undefined as never, keyStoreSealer()),
    new SearchStatePublisher(redis, new SearchRepository(ds)),
  );
  optOuts = new OptOuts(ds);
  send = new SendRevocation(optOuts, { revocationSendTimeoutMs: 2_000 });
});

afterAll(async () => {
  await school?.close();
  redis?.disconnect();
  await ds?.destroy();
});

/** Two shared offers of two schools, delivered by the json adapter to the fake school, revocations to `revocationPath`. */
function twoSchools(revocationPath: string | null): Promise<SubmitWorld> {
  const delivery = {
    adapter: 'json',
    url: school.url('/accept'),
    timeout_ms: 1000,
    ...(revocationPath ? { revocation_url: school.url(revocationPath) } : {}),
  };
  return submitWorld(ds, [{ delivery }, { delivery }]);
}

/** The person sold to every offer of the world (one search, one submit per offer): the accepted lead ids. */
async function soldToEveryOffer(world: SubmitWorld, person: Lead): Promise<string[]> {
  const search = await storeSearch(world, person);
  const leads: string[] = [];
  for (const offerId of world.offerIds) {
    const outcome = await decideSubmit(ds).run(resultSubmit(world, search, offerId));
    if (!('deliver' in outcome)) throw new Error(`not reserved: ${JSON.stringify(outcome.answer)}`);
    const answer = await delivery.run(outcome.deliver);
    if (answer.kind !== 'decision' || answer.decision.code !== 'ACCEPTED') throw new Error(`not accepted: ${JSON.stringify(answer)}`);
    leads.push(outcome.deliver.leadId);
  }
  return leads;
}

/** This file's relay: the medium database is shared with other files, whose notices are theirs to relay. */
const RELAY = `medium-${randomUUID().slice(0, 8)}`;

const optOut = (raw: { email?: string; phone?: string }, receivedAt = new Date()): OptOutRecord =>
  optOutRecord({
    id: randomUUID(),
    receivedAt,
    source: 'operator',
    affiliateId: null,
    apiKeyId: null,
    reference: null,
    keys: optOutKeysOf(TEST_PERSON_KEY_SECRET, raw),
    actor: 'operator',
    relay: RELAY,
  });

/** An affiliate's opt-out over the API, as the gateway records it: attributed to the key that sent it. */
const affiliateOptOut = (raw: { email?: string; phone?: string }): OptOutRecord => {
  const affiliateId = randomUUID();
  return { ...optOut(raw), source: 'affiliate', affiliateId, apiKeyId: randomUUID(), actor: `affiliate:${affiliateId}` };
};

const reverse = (ids: string[], reason = 'not the consumer: a competitor') => optOuts.reverse(ids, 'operator:medium', reason);

/** A fresh person sold to two schools, then opted out by an affiliate's key by their email or phone: the opt-out and the leads. */
async function soldThenOptedOut(by: 'email' | 'phone', revocationPath = '/revocations') {
  const world = await twoSchools(revocationPath);
  const person = freshPerson();
  const leads = await soldToEveryOffer(world, person);
  const record = affiliateOptOut({ [by]: person.personal![by]! });
  const recorded = await optOuts.record(record);
  return { world, person, leads, record, recorded };
}
const reached = (noticeId: string) => school.callsFor(noticeId);

const noticesOf = (leadIds: string[]) => revocationNoticesOf(ds, leadIds);

/** The phone written another way: what the affiliate's or operator's request may carry. */
const reformatted = (phone: string) => `+1 (${phone.slice(0, 3)}) ${phone.slice(3, 6)}-${phone.slice(6)}`;

describe('opt-outs (medium: real PostgreSQL, schools on 127.0.0.1)', () => {
  it('a person sold to two schools: concurrent opt-outs by phone and email write exactly one notice per buyer, due ten business days on', async () => {
    const world = await twoSchools('/revocations');
    const person = freshPerson();
    const leads = await soldToEveryOffer(world, person);
    const receivedAt = new Date('2026-11-26T12:00:00Z');

    const results = await Promise.all([
      optOuts.record(optOut({ phone: reformatted(person.personal!.phone!) }, receivedAt)),
      optOuts.record(optOut({ email: person.personal!.email!.toUpperCase() }, receivedAt)),
      optOuts.record(optOut({ phone: person.personal!.phone!, email: person.personal!.email! }, receivedAt)),
    ]);

    expect(results.reduce((n, r) => n + r.notices, 0)).toBe(2);
    expect(results.reduce((n, r) => n + r.suppressed, 0)).toBe(2); // phone and email, each suppressed once
    const notices = await noticesOf(leads);
    expect(notices.map((n) => n.lead_id).sort()).toEqual([...leads].sort());
    expect(new Set(notices.map((n) => n.buyer_id)).size).toBe(2);
    expect(notices.every((n) => n.buyer_kind === 'school' && new Date(n.due_at).toISOString() === '2026-12-10T12:00:00.000Z')).toBe(true);
    // A later opt-out of the same person adds none.
    expect((await optOuts.record(optOut({ phone: person.personal!.phone! }))).notices).toBe(0);
    expect(await noticesOf(leads)).toHaveLength(2);
  });

  it('a suppressed person is refused NOT_ELIGIBLE `Not eligible` at submit, for any affiliate; lifting it (audited) sells again', async () => {
    const world = await twoSchools('/revocations');
    const other = await twoSchools('/revocations');
    const person = freshPerson();
    await optOuts.record(optOut({ phone: reformatted(person.personal!.phone!) }));

    for (const w of [world, other]) {
      const search = await storeSearch(w, person);
      const msg = resultSubmit(w, search, w.offerIds[0]);
      const outcome = await decideSubmit(ds).run(msg);
      expect('answer' in outcome && outcome.answer).toMatchObject({
        kind: 'decision',
        decision: { code: 'NOT_ELIGIBLE', reason: 'Not eligible', status: 'rejected' },
      });
      // Stored without their contact data; the consent evidence as the affiliate sent it.
      const row = await storedContactOf(ds, msg.leadId);
      expect(row.lead.personal).toBeUndefined();
      expect(JSON.stringify(row.lead)).not.toContain(person.personal!.last_name!);
      expect([row.consumer_ip, row.tracking.ip_address]).toEqual(['', undefined]);
      expect(row.consent_ip).not.toBe('');
    }

    expect(
      await optOuts.lift(optOutKeysOf(TEST_PERSON_KEY_SECRET, { phone: person.personal!.phone! }), 'operator', 'asked by mistake'),
    ).toEqual(['phone']);
    const audit = await suppressionAuditOf(ds, optOutKeysOf(TEST_PERSON_KEY_SECRET, { phone: person.personal!.phone! })[0].hash);
    expect(audit).toMatchObject([
      { action: 'suppress', actor: 'operator', reason: null },
      { action: 'lift', actor: 'operator', reason: 'asked by mistake' },
    ]);
    const search = await storeSearch(world, person);
    expect(await decideSubmit(ds).run(resultSubmit(world, search, world.offerIds[0]))).toHaveProperty('deliver');
  });

  it('sending: the buyer gets the notice once with its id as Idempotency-Key and no contact data; a second message sends nothing', async () => {
    const world = await twoSchools('/revocations');
    const person = freshPerson();
    const [lead] = await soldToEveryOffer(world, person);
    await optOuts.record(optOut({ email: person.personal!.email! }));
    const [notice] = await noticesOf([lead]);

    await send.run({ noticeId: notice.id });
    await send.run({ noticeId: notice.id });

    const sent = school.received.filter((r) => r.idempotencyKey === notice.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      path: '/revocations',
      body: { type: 'consent_revoked', notice_id: notice.id, lead_id: lead, offer_id: world.offerIds[0] },
    });
    const body = JSON.stringify(sent[0].body);
    for (const value of [person.personal!.email!, person.personal!.phone!, person.personal!.last_name!]) expect(body).not.toContain(value);
    const [after] = await noticesOf([lead]);
    expect(after.acknowledged_at).not.toBeNull();
    expect(after.receipt).toMatchObject({ http_status: 200, by: 'buyer' });
    expect(after.attempts).toBe(1);
  });

  it('a buyer that never acknowledges: each try fails (to be retried, then dead-lettered), the notice stays open and is overdue past its deadline', async () => {
    const world = await twoSchools('/revocations-ignored');
    const person = freshPerson();
    const [lead] = await soldToEveryOffer(world, person);
    await optOuts.record(optOut({ email: person.personal!.email! }, new Date('2026-10-01T09:00:00Z')));
    const [notice] = await noticesOf([lead]);

    await expect(send.run({ noticeId: notice.id })).rejects.toBeInstanceOf(NoticeNotAcknowledgedError);
    await expect(send.run({ noticeId: notice.id })).rejects.toThrow('HTTP 503');
    const [after] = await noticesOf([lead]);
    expect(after).toMatchObject({ acknowledged_at: null, attempts: 2, last_error: 'HTTP 503', sending_until: null });
    const overdue = await optOuts.open(new Date(), 10_000);
    expect(overdue.find((n) => n.id === notice.id)).toMatchObject({
      leadId: lead,
      buyerKind: 'school',
      attempts: 2,
      lastError: 'HTTP 503',
    });
    const counts = await optOuts.counts();
    expect(counts.overdue).toBeGreaterThanOrEqual(1);
    expect(counts.open).toBeGreaterThanOrEqual(counts.overdue);
    expect(counts.recordedLastDay.operator).toBeGreaterThanOrEqual(1);
    // By source only (other files of this tier record affiliates' opt-outs in the same database meanwhile).
    for (const source of Object.keys(counts.recordedLastDay)) expect(['affiliate', 'operator', 'deletion']).toContain(source);
  });

  it('a notice held by another sender is left to it, and queued again once its hold lapses; one whose buyer has no channel waits for an operator', async () => {
    const world = await twoSchools(null);
    const person = freshPerson();
    const [lead] = await soldToEveryOffer(world, person);
    await optOuts.record(optOut({ email: person.personal!.email! }));
    const [notice] = await noticesOf([lead]);

    await optOuts.markQueued([notice.id]);
    expect(await optOuts.claim(notice.id, 60_000)).toMatchObject({ state: 'claimed' });
    await send.run({ noticeId: notice.id });
    expect((await noticesOf([lead]))[0]).toMatchObject({ attempts: 1, last_error: null });
    expect(await optOuts.requeueAbandoned(RELAY)).toBe(0);
    await lapseRevocationClaim(ds, notice.id);
    expect(await optOuts.requeueAbandoned(RELAY)).toBeGreaterThanOrEqual(1);
    expect(await optOuts.unqueued(10_000, RELAY)).toContain(notice.id);

    await send.run({ noticeId: notice.id });
    const [after] = await noticesOf([lead]);
    expect(after.acknowledged_at).toBeNull();
    expect(after.last_error).toMatch(/^no revocation channel configured/);
    expect(await optOuts.acknowledge(notice.id, { by: 'operator', reference: 'emailed the school' })).toBeInstanceOf(Date);
    expect((await noticesOf([lead]))[0].receipt).toMatchObject({ by: 'operator', reference: 'emailed the school' });
  });

  it('a lead accepted after its person opted out (reserved just before) gets its notice from the relay, once', async () => {
    const world = await twoSchools('/revocations');
    const person = freshPerson();
    const search = await storeSearch(world, person);
    const outcome = await decideSubmit(ds).run(resultSubmit(world, search, world.offerIds[0]));
    if (!('deliver' in outcome)) throw new Error('not reserved');
    expect((await optOuts.record(optOut({ phone: person.personal!.phone! }))).notices).toBe(0);
    await delivery.run(outcome.deliver);

    expect(await optOuts.addLateNotices(RELAY)).toBeGreaterThanOrEqual(1);
    expect(await optOuts.addLateNotices(RELAY)).toBe(0);
    expect(await noticesOf([outcome.deliver.leadId])).toHaveLength(1);
    const unqueued = await optOuts.unqueued(10_000, RELAY);
    expect(unqueued).toContain((await noticesOf([outcome.deliver.leadId]))[0].id);
    await optOuts.markQueued(unqueued);
    expect(await optOuts.unqueued(10_000, RELAY)).toEqual([]);
  });

  it("relays only its own system's notices: another system sharing the database (its own message prefix) relays its own", async () => {
    const world = await twoSchools('/revocations');
    const person = freshPerson();
    const [lead] = await soldToEveryOffer(world, person);
    await optOuts.record({ ...optOut({ email: person.personal!.email! }), relay: `${RELAY}-other` });
    const [notice] = await noticesOf([lead]);
    expect(await optOuts.unqueued(10_000, RELAY)).not.toContain(notice.id);
    expect(await optOuts.unqueued(10_000, `${RELAY}-other`)).toContain(notice.id);
  });

  describe('reversing an opt-out', () => {
    it("a reversed opt-out's notices not yet sent are never sent; one already acknowledged is left as it is and never sent again", async () => {
      const { leads, record, recorded } = await soldThenOptedOut('email');
      expect(recorded).toEqual({ suppressed: 1, notices: 2 });
      const [sent, pending] = await noticesOf(leads);
      await send.run({ noticeId: sent.id });
      expect(reached(sent.id)).toBe(1);

      const reversal = await reverse([record.id]);

      expect(reversal).toEqual({
        reversed: [record.id],
        keysLifted: 1,
        keysKept: 0,
        notices: { cancelled: 1, underWay: 0, handedOver: 0, alreadySent: 1 },
      });
      // The relay does not queue the cancelled one; a message already queued for it sends nothing, nor does one for the sent one.
      expect(await optOuts.unqueued(10_000, RELAY)).not.toContain(pending.id);
      expect(await optOuts.claim(pending.id, 1_000)).toEqual({ state: 'cancelled' });
      await send.run({ noticeId: pending.id });
      await send.run({ noticeId: sent.id });
      expect([reached(sent.id), reached(pending.id)]).toEqual([1, 0]);
      expect((await optOuts.open(null, 10_000)).map((n) => n.id)).not.toContain(pending.id);
      const after = await noticesOf(leads);
      expect(after.map((n) => [n.acknowledged_at !== null, n.cancelled_at !== null])).toEqual([
        [true, false],
        [false, true],
      ]);
      // Reversing again changes nothing.
      expect(await reverse([record.id])).toMatchObject({ reversed: [], keysLifted: 0, notices: { cancelled: 0, alreadySent: 0 } });
    });

    it('a later opt-out of the same person: the buyer already told is not told again; the one whose notice was cancelled gets it once, with the same notice id', async () => {
      const { person, leads, record: first } = await soldThenOptedOut('phone');
      const [sent, pending] = await noticesOf(leads);
      await send.run({ noticeId: sent.id });
      await reverse([first.id]);

      const again = optOut({ email: person.personal!.email!, phone: reformatted(person.personal!.phone!) });
      expect(await optOuts.record(again)).toEqual({ suppressed: 2, notices: 1 });

      const notices = await noticesOf(leads);
      expect(notices.map((n) => [n.id, n.opt_out_id, n.cancelled_at, n.queued_at])).toEqual([
        [sent.id, first.id, null, null],
        [pending.id, again.id, null, null],
      ]);
      expect(new Date(notices[1].due_at).toISOString()).toBe(again.dueAt.toISOString());
      expect(await optOuts.unqueued(10_000, RELAY)).toContain(pending.id);
      await send.run({ noticeId: pending.id });
      await send.run({ noticeId: sent.id });
      expect([reached(sent.id), reached(pending.id)]).toEqual([1, 1]);
      // A third opt-out adds nothing: each buyer has been told.
      expect((await optOuts.record(optOut({ email: person.personal!.email! }))).notices).toBe(0);
    });

    it('while another opt-out of the person stands, the suppression stays (held by it) and the notices not sent pass to it, due when its are', async () => {
      const { world, person, leads, record: hostile } = await soldThenOptedOut('email');
      const own = optOut({ email: person.personal!.email! }, new Date(Date.now() + 1_000));
      expect(await optOuts.record(own)).toEqual({ suppressed: 0, notices: 0 });

      expect(await reverse([hostile.id])).toMatchObject({
        reversed: [hostile.id],
        keysLifted: 0,
        keysKept: 1,
        notices: { cancelled: 0, underWay: 0, handedOver: 2 },
      });
      const emailHash = optOutKeysOf(TEST_PERSON_KEY_SECRET, { email: person.personal!.email! })[0].hash;
      expect(await suppressionHolderOf(ds, emailHash)).toBe(own.id);
      expect((await suppressionAuditOf(ds, emailHash)).map((a) => [a.action, a.opt_out_id, a.actor])).toEqual([
        ['suppress', hostile.id, hostile.actor],
        ['suppress', own.id, 'operator:medium'],
      ]);
      const notices = await noticesOf(leads);
      expect(notices.map((n) => [n.opt_out_id, new Date(n.due_at).toISOString(), n.cancelled_at])).toEqual([
        [own.id, own.dueAt.toISOString(), null],
        [own.id, own.dueAt.toISOString(), null],
      ]);
      const search = await storeSearch(world, person);
      expect(await decideSubmit(ds).run(resultSubmit(world, search, world.offerIds[0]))).toMatchObject({
        answer: { decision: { code: 'NOT_ELIGIBLE' } },
      });
    });

    it('a reversal racing the sender: a notice whose send was under way reaches its buyer once and is never sent again; one cancelled first is never sent', async () => {
      // The send under way: the school answers 600 ms late, and the reversal comes while the call is out.
      const {
        leads: [lead],
        record,
      } = await soldThenOptedOut('email', '/revocations?delay=600');
      const [notice] = await noticesOf([lead]);
      const sending = send.run({ noticeId: notice.id });
      for (let i = 0; i < 100 && (await noticesOf([lead]))[0].attempts === 0; i++) await new Promise((r) => setTimeout(r, 10));
      const reversal = await reverse([record.id]);
      await sending;
      // The other school's notice was not yet claimed: cancelled, never sent.
      expect(reversal.notices).toMatchObject({ cancelled: 1, underWay: 1 });
      await send.run({ noticeId: notice.id });
      expect(reached(notice.id)).toBe(1);
      expect((await noticesOf([lead]))[0]).toMatchObject({ attempts: 1 });

      // Truly concurrent: whichever wins, the buyer is reached at most once, and exactly when the receipt is booked.
      for (let i = 0; i < 6; i++) {
        const {
          leads: [l],
          record: r,
        } = await soldThenOptedOut('phone');
        const [n] = await noticesOf([l]);
        const [, rev] = await Promise.all([send.run({ noticeId: n.id }), reverse([r.id])]);
        await send.run({ noticeId: n.id });
        const [after] = await noticesOf([l]);
        expect({ reached: reached(n.id), acknowledged: after.acknowledged_at !== null }).toEqual({
          reached: after.acknowledged_at !== null ? 1 : 0,
          acknowledged: after.acknowledged_at !== null,
        });
        expect(rev.reversed).toEqual([r.id]);
        // Its other notice (the second school's) was never claimed: cancelled.
        expect(rev.notices.cancelled + rev.notices.underWay + rev.notices.alreadySent).toBe(2);
        expect(after.cancelled_at !== null || rev.notices.alreadySent === 1).toBe(true);
      }
    });
  });
});
