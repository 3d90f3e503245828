import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import type { DataSource } from 'typeorm';
import type { DeliveryRequestedV1, SubmitDecision, SubmitRefusal, SubmitRequestedV1 } from '@lr/contracts';
import { leadDedupeKeys, splitContact } from '@lr/domain';
import {
  applyChanged,
  decideSubmit,
  freshPerson,
  keyStoreSealer,
  mediumDataSource,
  resultSubmit,
  storeSearch,
  submitWorld,
  SubmitWorld,
} from '../../../../test/support/medium-world';
import type { DecideSubmit, SubmitOutcome } from './decide-submit.usecase';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';
import { salesOfLead, storedLeadOf } from '../../../../test/support/stored-rows';

/**
 * checks' DecideSubmit against the real PostgreSQL (medium tier, no broker):
 * the answer it gives (or the delivery request it forwards) and what it leaves
 * in leads, consent_evidence, sales, cap_usage, dedupe_keys and searches.
 * Every test applies its own catalog and uses fresh persons and searches.
 */

let ds: DataSource;
let checks: DecideSubmit;

beforeAll(async () => {
  ds = await mediumDataSource(16);
  checks = decideSubmit(ds);
});

afterAll(async () => {
  await ds?.destroy();
});

const HS_GRAD_YEAR = { name: 'hs_grad_year', label: 'HS grad year', type: 'number', required: true };

function delivered(outcome: SubmitOutcome): DeliveryRequestedV1 {
  if (!('deliver' in outcome)) throw new Error(`expected a reserved sale, got ${JSON.stringify(outcome.answer)}`);
  return outcome.deliver;
}

function decided(outcome: SubmitOutcome): SubmitDecision {
  if (!('answer' in outcome) || outcome.answer.kind !== 'decision') throw new Error(`expected a decision, got ${JSON.stringify(outcome)}`);
  return outcome.answer.decision;
}

function refused(outcome: SubmitOutcome): SubmitRefusal {
  if (!('answer' in outcome) || outcome.answer.kind !== 'refused') throw new Error(`expected a refusal, got ${JSON.stringify(outcome)}`);
  return outcome.answer.refusal;
}

async function leadRow(leadId: string) {
  return storedLeadOf(ds, leadId);
}

async function leadCount(where: { searchId?: string; leadId?: string }): Promise<number> {
  const rows: Array<{ n: number }> = await ds.query(
    'SELECT count(*)::int AS n FROM leads WHERE ($1::uuid IS NULL OR search_id = $1) AND ($2::uuid IS NULL OR id = $2)',
    [where.searchId ?? null, where.leadId ?? null],
  );
  return rows[0].n;
}

async function salesOf(leadId: string) {
  return salesOfLead(ds, leadId);
}

async function liveSalesOfGroup(groupId: string): Promise<Array<{ offer_id: string; lead_id: string; status: string }>> {
  return ds.query(`SELECT offer_id, lead_id, status FROM sales WHERE lead_group_id = $1 AND status <> 'released'`, [groupId]);
}

async function salesOfOffer(offerId: string): Promise<Array<{ lead_id: string; status: string }>> {
  return ds.query('SELECT lead_id, status FROM sales WHERE offer_id = $1', [offerId]);
}

/** cap_usage.used of a slot; 0 when the slot has no row. */
async function capUsed(scope: string, period = 'total'): Promise<number> {
  const rows: Array<{ used: number }> = await ds.query('SELECT used FROM cap_usage WHERE scope = $1 AND period = $2', [scope, period]);
  return rows.reduce((n, r) => n + r.used, 0);
}

async function dedupeKeysOf(leadId: string): Promise<Array<{ key_type: string; key_hash: string; offer_id: string }>> {
  return ds.query('SELECT key_type, key_hash, offer_id FROM dedupe_keys WHERE lead_id = $1 ORDER BY key_type', [leadId]);
}

async function consentOf(leadId: string) {
  const rows: Array<Record<string, unknown> & { consented_at: Date }> = await ds.query(
    'SELECT * FROM consent_evidence WHERE lead_id = $1',
    [leadId],
  );
  return rows[0];
}

async function searchRow(searchId: string) {
  const rows: Array<Record<string, unknown>> = await ds.query(
    'SELECT lead, submitted_at, person_keys, accepted_count, state_version FROM searches WHERE id = $1',
    [searchId],
  );
  return rows[0];
}

/** Nothing of a sale exists for the lead: no sale row, no dedupe key. */
async function expectNothingReserved(leadId: string): Promise<void> {
  expect(await salesOf(leadId)).toEqual([]);
  expect(await dedupeKeysOf(leadId)).toEqual([]);
}

/** A live sale of a fresh person on the offer, taking one slot of its caps. */
async function sellToSomeoneElse(world: SubmitWorld, offerId: string): Promise<void> {
  const other = await storeSearch(world, freshPerson(), { offerIds: [offerId] });
  delivered(await checks.run(resultSubmit(world, other, offerId)));
}

const offerScope = (offerId: string) => `offer:${offerId}`;

describe('DecideSubmit (medium: real PostgreSQL)', () => {
  describe('a valid result submit', () => {
    it('reserves the sale (lead pending, sale with payout and cap slots, caps counted, dedupe keys, consent as shown, search submitted) and forwards the delivery request', async () => {
      const world = await submitWorld(ds, [
        {
          caps: [{ period: 'total', limit: 10 }],
          campaignCaps: [{ period: 'day', limit: 5 }],
          formFields: [HS_GRAD_YEAR],
          tcpaText: 'I agree that Medium School 1 may contact me (as shown).',
        },
      ]);
      const offerId = world.offerIds[0];
      const lead = freshPerson();
      const search = await storeSearch(world, lead, { formCertUrl: 'https://certs.example/search-cert' });
      const shownStatement = search.results.get(offerId)!.entry.offer.tcpa_text;
      // The catalog's statement changes after the search showed the result: the evidence keeps what was shown.
      await applyChanged(world, offerId, { tcpa_text: 'A newer statement nobody was shown.' });
      const msg = resultSubmit(world, search, offerId, { answers: { hs_grad_year: 2013, not_a_question: 'ignored' } });

      const deliver = delivered(await checks.run(msg));

      // The lead travels sealed: its readable part in the message, its contact data under the lead's own data key.
      const { contact: sealed, ...sent } = deliver;
      expect(JSON.stringify(deliver)).not.toContain(lead.personal!.email!);
      const sealedRow = splitContact(
        { lead, tracking: search.tracking, consumerIp: search.consumerIp, ipSource: 'consumer' },
        new Date(msg.requestedAt),
      ).readable;
      const opened = await keyStoreSealer().openRecord({ ...sealedRow, lead: sent.lead }, sealed);
      expect(opened).toMatchObject({ lead, consumerIp: search.consumerIp, tracking: search.tracking });
      expect(sealed).toMatchObject({ of: msg.leadId });
      expect(sent).toEqual({
        leadId: msg.leadId,
        kind: 'result_submit',
        affiliateId: world.affiliateId,
        campaignId: world.campaignId,
        offerId,
        searchId: search.searchId,
        resultId: msg.resultId,
        offerType: 'shared',
        payout: '20.00',
        buyer: {
          kind: 'school',
          schoolName: 'Medium School 1',
          offerName: 'Medium Offer 1',
          delivery: { adapter: 'sandbox', url: 'http://127.0.0.1:9/never', timeout_ms: 300 },
        },
        lead: sealedRow.lead,
        tracking: sealedRow.tracking,
        consumerIp: '',
        programId: 'gen',
        answers: { hs_grad_year: '2013' },
        consent: {
          tcpaConsent: true,
          tcpaText: shownStatement,
          buttonLabel: 'Request info',
          consentedAt: msg.requestedAt,
          ip: '',
          formCertUrl: 'https://certs.example/search-cert',
          universalLeadCert: null,
        },
        submittedAt: msg.requestedAt,
      });

      const row = await leadRow(msg.leadId);
      expect(row).toMatchObject({
        status: 'pending',
        code: 'PENDING',
        kind: 'result_submit',
        search_id: search.searchId,
        result_id: msg.resultId,
        lead_group_id: search.searchId,
        offer_id: offerId,
        program_id: 'gen',
        answers: { hs_grad_year: '2013' },
        lead: sealedRow.lead,
        contact: sealed,
        consumer_ip: '',
        is_test: false,
        decided_at: null,
        decided_by: null,
      });

      const [sale] = await salesOf(msg.leadId);
      expect(sale).toMatchObject({
        status: 'reserved',
        payout: '20.00',
        price: '45.00',
        offer_type: 'shared',
        offer_id: offerId,
        search_id: search.searchId,
        lead_group_id: search.searchId,
      });
      const slots = (sale.cap_slots as Array<{ scope: string; period: string; period_start: string }>).map((s) => ({
        scope: s.scope,
        period: s.period,
      }));
      expect(slots).toEqual(
        expect.arrayContaining([
          { scope: offerScope(offerId), period: 'total' },
          { scope: `campaign:${world.campaignId}:offer:${offerId}`, period: 'day' },
        ]),
      );
      expect(slots).toHaveLength(2);
      expect(await capUsed(offerScope(offerId), 'total')).toBe(1);
      expect(await capUsed(`campaign:${world.campaignId}:offer:${offerId}`, 'day')).toBe(1);

      const keys = leadDedupeKeys(TEST_PERSON_KEY_SECRET, lead);
      expect(await dedupeKeysOf(msg.leadId)).toEqual(
        [...keys].sort((a, b) => a.type.localeCompare(b.type)).map((k) => ({ key_type: k.type, key_hash: k.hash, offer_id: offerId })),
      );

      const consent = await consentOf(msg.leadId);
      expect(consent).toMatchObject({
        tcpa_consent: true,
        tcpa_text: shownStatement,
        button_label: 'Request info',
        ip: search.consumerIp,
        form_cert_url: 'https://certs.example/search-cert',
        universal_lead_cert: null,
      });
      expect(new Date(consent.consented_at).toISOString()).toBe(msg.requestedAt);

      const s = await searchRow(search.searchId);
      expect(s.lead).toEqual(lead);
      expect(s.submitted_at).not.toBeNull();
      expect(s.person_keys).toEqual(keys.map((k) => ({ type: k.type, hash: k.hash })));
    });

    it('a submit that repeats the lead data unchanged after the search was submitted is sold', async () => {
      const world = await submitWorld(ds, [{}, {}]);
      const lead = freshPerson();
      const search = await storeSearch(world, lead);
      delivered(await checks.run(resultSubmit(world, search, world.offerIds[0])));

      const again = resultSubmit(world, search, world.offerIds[1], { lead: { personal: { email: lead.personal!.email! } } });
      expect(delivered(await checks.run(again)).leadId).toBe(again.leadId);
      expect(await liveSalesOfGroup(search.searchId)).toHaveLength(2);
    });
  });

  describe('refusals stored as decided, nothing reserved', () => {
    it('a missing required answer is REQUIRED_FIELD_MISSING naming the question', async () => {
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 10 }], formFields: [HS_GRAD_YEAR] }]);
      const offerId = world.offerIds[0];
      const search = await storeSearch(world, freshPerson());
      const msg = resultSubmit(world, search, offerId, { answers: {} });

      const d = decided(await checks.run(msg));

      expect(d).toMatchObject({
        leadId: msg.leadId,
        status: 'invalid',
        code: 'REQUIRED_FIELD_MISSING',
        reason: 'Missing HS grad year',
        field: 'hs_grad_year',
        payout: 0,
        decidedBy: 'service',
        offerId,
        resultId: msg.resultId,
        searchId: search.searchId,
      });
      expect(d.decidedAt).not.toBeNull();
      const row = await leadRow(msg.leadId);
      expect(row).toMatchObject({
        status: 'invalid',
        code: 'REQUIRED_FIELD_MISSING',
        reason: 'Missing HS grad year',
        field: 'hs_grad_year',
        decided_by: 'service',
      });
      expect(row.decided_at).not.toBeNull();
      await expectNothingReserved(msg.leadId);
      expect(await capUsed(offerScope(offerId))).toBe(0);
      expect((await searchRow(search.searchId)).submitted_at).toBeNull();
      // The consent decision is kept with the refused submit.
      expect(await consentOf(msg.leadId)).toMatchObject({ tcpa_consent: true });
    });

    it('consent absent is REQUIRED_FIELD_MISSING tcpa_consent, with no consent evidence', async () => {
      const world = await submitWorld(ds, [{}]);
      const search = await storeSearch(world, freshPerson());
      const msg = resultSubmit(world, search, world.offerIds[0], { tcpaConsent: null });

      const d = decided(await checks.run(msg));

      expect(d).toMatchObject({
        status: 'invalid',
        code: 'REQUIRED_FIELD_MISSING',
        reason: 'Missing tcpa_consent',
        field: 'tcpa_consent',
        decidedBy: 'service',
      });
      expect(await leadRow(msg.leadId)).toMatchObject({ status: 'invalid', code: 'REQUIRED_FIELD_MISSING' });
      expect(await consentOf(msg.leadId)).toBeUndefined();
      await expectNothingReserved(msg.leadId);
    });

    it('consent false is CONSENT_REQUIRED, the refusal kept as evidence', async () => {
      const world = await submitWorld(ds, [{}]);
      const search = await storeSearch(world, freshPerson());
      const msg = resultSubmit(world, search, world.offerIds[0], { tcpaConsent: false });

      const d = decided(await checks.run(msg));

      expect(d).toMatchObject({
        status: 'invalid',
        code: 'CONSENT_REQUIRED',
        reason: 'Consent required',
        field: 'tcpa_consent',
        decidedBy: 'service',
      });
      expect(await leadRow(msg.leadId)).toMatchObject({ status: 'invalid', code: 'CONSENT_REQUIRED' });
      expect(await consentOf(msg.leadId)).toMatchObject({ tcpa_consent: false });
      await expectNothingReserved(msg.leadId);
    });

    it('an expired result is OFFER_UNAVAILABLE', async () => {
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 10 }] }]);
      const offerId = world.offerIds[0];
      // Shown 901 s ago with a TTL of 900 s.
      const search = await storeSearch(world, freshPerson(), { at: new Date(Date.now() - 901_000) });
      const msg = resultSubmit(world, search, offerId);

      const d = decided(await checks.run(msg));

      expect(d).toMatchObject({
        status: 'rejected',
        code: 'OFFER_UNAVAILABLE',
        reason: 'Offer unavailable',
        payout: 0,
        decidedBy: 'service',
      });
      expect(await leadRow(msg.leadId)).toMatchObject({ status: 'rejected', code: 'OFFER_UNAVAILABLE' });
      await expectNothingReserved(msg.leadId);
      expect(await capUsed(offerScope(offerId))).toBe(0);
    });

    it('a program the lead is not eligible for is NOT_ELIGIBLE', async () => {
      const world = await submitWorld(ds, [
        {
          programs: [
            { value: 'gen', label: 'General Studies' },
            { value: 'ca_rn', label: 'RN (California only)', eligibility: { states: ['CA'] } },
          ],
        },
      ]);
      const offerId = world.offerIds[0];
      // The result showed both programs; the lead lives in TX.
      const search = await storeSearch(world, freshPerson({ state: 'TX' }), { programs: { [offerId]: ['gen', 'ca_rn'] } });
      const msg = resultSubmit(world, search, offerId, { programId: 'ca_rn' });

      const d = decided(await checks.run(msg));

      expect(d).toMatchObject({ status: 'rejected', code: 'NOT_ELIGIBLE', reason: 'Not eligible', decidedBy: 'service' });
      expect(await leadRow(msg.leadId)).toMatchObject({ status: 'rejected', code: 'NOT_ELIGIBLE', program_id: 'ca_rn' });
      await expectNothingReserved(msg.leadId);
    });

    it('a repost to the same offer of the same search is DUPLICATE `Duplicate - Offer`', async () => {
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 10 }] }]);
      const offerId = world.offerIds[0];
      const search = await storeSearch(world, freshPerson());
      const first = resultSubmit(world, search, offerId);
      delivered(await checks.run(first));

      const repost = resultSubmit(world, search, offerId);
      const d = decided(await checks.run(repost));

      expect(d).toMatchObject({
        leadId: repost.leadId,
        status: 'rejected',
        code: 'DUPLICATE',
        reason: 'Duplicate - Offer',
        decidedBy: 'service',
        payout: 0,
      });
      expect(await leadRow(repost.leadId)).toMatchObject({ status: 'rejected', code: 'DUPLICATE', reason: 'Duplicate - Offer' });
      await expectNothingReserved(repost.leadId);
      expect(await liveSalesOfGroup(search.searchId)).toEqual([{ offer_id: offerId, lead_id: first.leadId, status: 'reserved' }]);
      expect(await capUsed(offerScope(offerId))).toBe(1);
    });

    it('the person sold the offer within its window in another search is DUPLICATE `Duplicate - Offer`', async () => {
      const world = await submitWorld(ds, [{}]);
      const offerId = world.offerIds[0];
      const person = freshPerson();
      const earlier = await storeSearch(world, person);
      delivered(await checks.run(resultSubmit(world, earlier, offerId)));

      const later = await storeSearch(world, person);
      const msg = resultSubmit(world, later, offerId);
      const d = decided(await checks.run(msg));

      expect(d).toMatchObject({ status: 'rejected', code: 'DUPLICATE', reason: 'Duplicate - Offer', decidedBy: 'service' });
      await expectNothingReserved(msg.leadId);
      expect((await searchRow(later.searchId)).submitted_at).toBeNull();
    });

    it('a full cap is CAP_REACHED `Cap reached`, and cap_usage does not change', async () => {
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 1 }] }]);
      const offerId = world.offerIds[0];
      await sellToSomeoneElse(world, offerId);
      expect(await capUsed(offerScope(offerId))).toBe(1);

      const search = await storeSearch(world, freshPerson());
      const msg = resultSubmit(world, search, offerId);
      const d = decided(await checks.run(msg));

      expect(d).toMatchObject({ status: 'rejected', code: 'CAP_REACHED', reason: 'Cap reached', decidedBy: 'service', payout: 0 });
      expect(await leadRow(msg.leadId)).toMatchObject({ status: 'rejected', code: 'CAP_REACHED', reason: 'Cap reached' });
      await expectNothingReserved(msg.leadId);
      expect(await capUsed(offerScope(offerId))).toBe(1);
    });

    it('a true_exclusive offer on a lead already sold is NOT_ELIGIBLE', async () => {
      const world = await submitWorld(ds, [{}, { offerType: 'true_exclusive' }]);
      const [shared, exclusive] = world.offerIds;
      const search = await storeSearch(world, freshPerson());
      delivered(await checks.run(resultSubmit(world, search, shared)));

      const msg = resultSubmit(world, search, exclusive);
      const d = decided(await checks.run(msg));

      expect(d).toMatchObject({
        status: 'rejected',
        code: 'NOT_ELIGIBLE',
        reason: 'Lead already sold; exclusive sale not possible',
        decidedBy: 'service',
      });
      await expectNothingReserved(msg.leadId);
      expect((await liveSalesOfGroup(search.searchId)).map((s) => s.offer_id)).toEqual([shared]);
    });
  });

  describe('test leads', () => {
    it('a test lead that passes the checks is held: TEST_LEAD_HELD, nothing reserved, no dedupe keys, no cap use', async () => {
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 5 }] }]);
      const offerId = world.offerIds[0];
      const search = await storeSearch(world, freshPerson(), { isTest: true });
      const msg = resultSubmit(world, search, offerId);

      const d = decided(await checks.run(msg));

      expect(d).toMatchObject({
        leadId: msg.leadId,
        status: 'held',
        code: 'TEST_LEAD_HELD',
        reason: 'Test lead held',
        isTest: true,
        payout: 0,
        decidedBy: 'service',
      });
      expect(await leadRow(msg.leadId)).toMatchObject({ status: 'held', code: 'TEST_LEAD_HELD', is_test: true, decided_by: 'service' });
      await expectNothingReserved(msg.leadId);
      expect(await capUsed(offerScope(offerId))).toBe(0);
      expect((await searchRow(search.searchId)).submitted_at).toBeNull();
      expect(await consentOf(msg.leadId)).toMatchObject({ tcpa_consent: true });
    });

    it('a test lead on a full cap is CAP_REACHED', async () => {
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 1 }] }]);
      const offerId = world.offerIds[0];
      await sellToSomeoneElse(world, offerId);
      const search = await storeSearch(world, freshPerson(), { isTest: true });
      const msg = resultSubmit(world, search, offerId);

      const d = decided(await checks.run(msg));

      expect(d).toMatchObject({ status: 'rejected', code: 'CAP_REACHED', reason: 'Cap reached', isTest: true });
      await expectNothingReserved(msg.leadId);
      expect(await capUsed(offerScope(offerId))).toBe(1);
    });
  });

  describe('refusals that save nothing', () => {
    it("a submit that changes the lead's data after the search was submitted is the 403 refusal, and nothing is saved", async () => {
      const world = await submitWorld(ds, [{}, { caps: [{ period: 'total', limit: 5 }] }]);
      const [first, second] = world.offerIds;
      const lead = freshPerson();
      const search = await storeSearch(world, lead);
      delivered(await checks.run(resultSubmit(world, search, first)));

      const msg = resultSubmit(world, search, second, { lead: { personal: { email: 'someone.else@example.com' } } });
      const r = refused(await checks.run(msg));

      expect(r).toEqual({ httpStatus: 403, code: 'FORBIDDEN', reason: 'Lead already submitted; its data cannot change' });
      expect(await leadRow(msg.leadId)).toBeUndefined();
      expect(await consentOf(msg.leadId)).toBeUndefined();
      await expectNothingReserved(msg.leadId);
      expect(await salesOfOffer(second)).toEqual([]);
      expect(await capUsed(offerScope(second))).toBe(0);
      expect((await searchRow(search.searchId)).lead).toEqual(lead);
    });

    it('a submit whose sealed contact data can no longer be read (the person was deleted since) is refused as not found, and nothing is saved', async () => {
      const world = await submitWorld(ds, [{}]);
      const lead = freshPerson();
      const leadId = randomUUID();
      // Sealed as the gateway seals a direct post, by another process (no key cached here), then the key destroyed.
      const gateway = keyStoreSealer(undefined, { cached: false });
      const { readable, contact } = await gateway.sealRecord(
        leadId,
        { lead, tracking: { ip_address: '73.12.44.10' }, consumerIp: '73.12.44.10', ipSource: 'consumer' },
        new Date(),
      );
      expect(await gateway.destroy([contact.key])).toBe(1);
      const msg: SubmitRequestedV1 = {
        leadId,
        kind: 'direct_post',
        affiliateId: world.affiliateId,
        apiKeyId: world.apiKeyId,
        campaignId: world.campaignId,
        resultId: null,
        searchId: null,
        offerId: world.offerIds[0],
        originLeadId: null,
        lead: readable.lead as SubmitRequestedV1['lead'],
        tracking: readable.tracking,
        consumerIp: readable.consumerIp,
        ipSource: 'consumer',
        programId: 'gen',
        answers: {},
        tcpaConsent: true,
        consentButtonLabel: 'Request info',
        formCertUrl: null,
        universalLeadCert: null,
        isTest: false,
        requestedAt: new Date().toISOString(),
        contact,
      };

      expect(refused(await checks.run(msg))).toEqual({ httpStatus: 404, code: 'NOT_FOUND', reason: 'Lead not found' });
      expect(await leadRow(leadId)).toBeUndefined();
      await expectNothingReserved(leadId);
    });

    it('a direct post retry naming an unknown lead is the 404 refusal, and nothing is saved', async () => {
      const world = await submitWorld(ds, [{}]);
      const lead = freshPerson();
      const msg: SubmitRequestedV1 = {
        leadId: randomUUID(),
        kind: 'direct_post',
        affiliateId: world.affiliateId,
        apiKeyId: world.apiKeyId,
        campaignId: world.campaignId,
        resultId: null,
        searchId: null,
        offerId: world.offerIds[0],
        originLeadId: randomUUID(),
        lead: lead as SubmitRequestedV1['lead'],
        tracking: { ip_address: '73.12.44.10' },
        consumerIp: '73.12.44.10',
        ipSource: 'consumer',
        programId: null,
        answers: {},
        tcpaConsent: true,
        consentButtonLabel: 'Request info',
        formCertUrl: null,
        universalLeadCert: null,
        isTest: false,
        requestedAt: new Date().toISOString(),
      };

      const r = refused(await checks.run(msg));

      expect(r).toEqual({ httpStatus: 404, code: 'NOT_FOUND', reason: 'Lead not found', field: 'svc_lead_id' });
      expect(await leadRow(msg.leadId)).toBeUndefined();
      expect(await salesOfOffer(world.offerIds[0])).toEqual([]);
    });
  });

  describe('redeliveries', () => {
    it('a redelivered submit already decided answers the same decision without a second row', async () => {
      const world = await submitWorld(ds, [{ formFields: [HS_GRAD_YEAR] }]);
      const search = await storeSearch(world, freshPerson());
      const msg = resultSubmit(world, search, world.offerIds[0], { answers: {} });

      const first = decided(await checks.run(msg));
      const again = decided(await checks.run(msg));

      expect(again).toEqual(first);
      expect(await leadCount({ searchId: search.searchId })).toBe(1);
      const consents: unknown[] = await ds.query('SELECT 1 FROM consent_evidence WHERE lead_id = $1', [msg.leadId]);
      expect(consents).toHaveLength(1);
    });

    it('a redelivered submit whose sale is reserved forwards the same delivery request again, taking nothing more', async () => {
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 5 }], formFields: [HS_GRAD_YEAR] }]);
      const offerId = world.offerIds[0];
      const search = await storeSearch(world, freshPerson());
      const msg = resultSubmit(world, search, offerId, { answers: { hs_grad_year: '2013' } });

      const first = delivered(await checks.run(msg));
      const again = delivered(await checks.run(msg));

      expect(again).toEqual(first);
      expect(await leadCount({ searchId: search.searchId })).toBe(1);
      expect(await salesOf(msg.leadId)).toHaveLength(1);
      expect(await capUsed(offerScope(offerId))).toBe(1);
    });
  });

  describe('races', () => {
    it('(a) N concurrent submits of N persons on an offer with a total cap of 1: exactly one reserved, the rest CAP_REACHED, cap_usage used 1', async () => {
      const N = 8;
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 1 }] }]);
      const offerId = world.offerIds[0];
      const searches = await Promise.all(Array.from({ length: N }, () => storeSearch(world, freshPerson())));
      const msgs = searches.map((s) => resultSubmit(world, s, offerId));

      const outcomes = await Promise.all(msgs.map((m) => checks.run(m)));

      const reserved = outcomes.filter((o) => 'deliver' in o);
      expect(reserved).toHaveLength(1);
      const refusals = outcomes.filter((o) => !('deliver' in o)).map((o) => decided(o));
      expect(refusals.map((d) => [d.code, d.reason])).toEqual(Array.from({ length: N - 1 }, () => ['CAP_REACHED', 'Cap reached']));
      expect(await capUsed(offerScope(offerId))).toBe(1);
      expect(await salesOfOffer(offerId)).toEqual([{ lead_id: delivered(reserved[0]).leadId, status: 'reserved' }]);
      const keyed: Array<{ n: number }> = await ds.query('SELECT count(DISTINCT lead_id)::int AS n FROM dedupe_keys WHERE offer_id = $1', [
        offerId,
      ]);
      expect(keyed[0].n).toBe(1);
    });

    it('(a2) N concurrent submits on an offer whose own cap has room and whose campaign cap holds 1: one reserved, and no refused submit keeps the slot it took of the other cap', async () => {
      const N = 8;
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 100 }], campaignCaps: [{ period: 'total', limit: 1 }] }]);
      const offerId = world.offerIds[0];
      const searches = await Promise.all(Array.from({ length: N }, () => storeSearch(world, freshPerson())));

      const outcomes = await Promise.all(searches.map((s) => checks.run(resultSubmit(world, s, offerId))));

      expect(outcomes.filter((o) => 'deliver' in o)).toHaveLength(1);
      const refusals = outcomes.filter((o) => !('deliver' in o)).map((o) => decided(o));
      expect(refusals.map((d) => d.code)).toEqual(Array.from({ length: N - 1 }, () => 'CAP_REACHED'));
      expect(await capUsed(offerScope(offerId))).toBe(1);
      expect(await capUsed(`campaign:${world.campaignId}:offer:${offerId}`)).toBe(1);
      expect(await salesOfOffer(offerId)).toHaveLength(1);
    });

    it('(a3) the contact data of a sale reaches PostgreSQL only as bound parameters, never in a statement text (PostgreSQL logs the text of a statement that fails, as in this cap race)', async () => {
      const N = 4;
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 1 }] }]);
      const offerId = world.offerIds[0];
      const people = Array.from({ length: N }, () => freshPerson());
      const searches = await Promise.all(people.map((p) => storeSearch(world, p)));
      const texts: string[] = [];
      const proto = PgClient.prototype as unknown as { query: (...args: unknown[]) => unknown };
      const query = proto.query;
      proto.query = function (this: unknown, ...args: unknown[]) {
        const first = args[0] as string | { text?: string } | undefined;
        texts.push(typeof first === 'string' ? first : (first?.text ?? ''));
        return query.apply(this, args);
      };
      let outcomes: SubmitOutcome[];
      try {
        outcomes = await Promise.all(searches.map((s) => checks.run(resultSubmit(world, s, offerId))));
      } finally {
        proto.query = query;
      }
      expect(outcomes.filter((o) => 'deliver' in o)).toHaveLength(1);
      expect(texts.some((t) => t.startsWith('BEGIN'))).toBe(true);
      const personal = people.flatMap((p) => [p.personal?.email, p.personal?.phone, p.personal?.last_name]).filter((v): v is string => !!v);
      expect(personal.length).toBe(3 * N);
      expect(texts.filter((t) => personal.some((v) => t.includes(v)))).toEqual([]);
    });

    it('(b) concurrent submits of one search to 4 shared offers: 3 reserved (max_accepted_submissions), the other NOT_ELIGIBLE', async () => {
      const world = await submitWorld(ds, [{}, {}, {}, {}]);
      const search = await storeSearch(world, freshPerson());
      const msgs = world.offerIds.map((o) => resultSubmit(world, search, o));

      const outcomes = await Promise.all(msgs.map((m) => checks.run(m)));

      expect(outcomes.filter((o) => 'deliver' in o)).toHaveLength(3);
      const refusals = outcomes.filter((o) => !('deliver' in o)).map((o) => decided(o));
      expect(refusals.map((d) => [d.code, d.reason])).toEqual([['NOT_ELIGIBLE', 'Lead already sold the maximum number of times']]);
      expect(await liveSalesOfGroup(search.searchId)).toHaveLength(3);
    });

    it('(c) a true_exclusive and a shared submit of one search at once: exactly one reserved', async () => {
      const world = await submitWorld(ds, [{}, { offerType: 'true_exclusive' }]);
      const search = await storeSearch(world, freshPerson());
      const msgs = world.offerIds.map((o) => resultSubmit(world, search, o));

      const outcomes = await Promise.all(msgs.map((m) => checks.run(m)));

      expect(outcomes.filter((o) => 'deliver' in o)).toHaveLength(1);
      const [refusal] = outcomes.filter((o) => !('deliver' in o)).map((o) => decided(o));
      expect(refusal.code).toBe('NOT_ELIGIBLE');
      expect(['Lead already sold exclusively', 'Lead already sold; exclusive sale not possible']).toContain(refusal.reason);
      expect(await liveSalesOfGroup(search.searchId)).toHaveLength(1);
    });

    it('(d) two searches of the same person submitted to the same offer at once: one reserved, the other DUPLICATE', async () => {
      const world = await submitWorld(ds, [{}]);
      const offerId = world.offerIds[0];
      const person = freshPerson();
      const [s1, s2] = await Promise.all([storeSearch(world, person), storeSearch(world, person)]);

      const outcomes = await Promise.all([checks.run(resultSubmit(world, s1, offerId)), checks.run(resultSubmit(world, s2, offerId))]);

      expect(outcomes.filter((o) => 'deliver' in o)).toHaveLength(1);
      const [refusal] = outcomes.filter((o) => !('deliver' in o)).map((o) => decided(o));
      expect([refusal.code, refusal.reason]).toEqual(['DUPLICATE', 'Duplicate - Offer']);
      expect(await salesOfOffer(offerId)).toHaveLength(1);
    });

    it('(e) two copies of the same submit message at once: one lead row, one sale, the twin answers the same lead', async () => {
      const world = await submitWorld(ds, [{ caps: [{ period: 'total', limit: 5 }] }]);
      const offerId = world.offerIds[0];
      const search = await storeSearch(world, freshPerson());
      const msg = resultSubmit(world, search, offerId);

      const [a, b] = await Promise.all([checks.run(msg), checks.run({ ...msg })]);

      expect(delivered(a).leadId).toBe(msg.leadId);
      expect(delivered(b).leadId).toBe(msg.leadId);
      expect(await leadCount({ searchId: search.searchId })).toBe(1);
      expect(await salesOf(msg.leadId)).toHaveLength(1);
      expect(await capUsed(offerScope(offerId))).toBe(1);
    });

    /**
     * The twin's INSERT … ON CONFLICT waits for the first copy and writes nothing; the first copy's row is not in
     * that statement's snapshot, so storeDecided reads it in a statement of its own.
     */
    it('(f) two copies of a refused submit at once both answer its one decision', async () => {
      const world = await submitWorld(ds, [{ formFields: [HS_GRAD_YEAR] }]);
      for (let i = 0; i < 20; i++) {
        const search = await storeSearch(world, freshPerson());
        const msg = resultSubmit(world, search, world.offerIds[0], { answers: {} });

        const [a, b] = await Promise.allSettled([checks.run(msg), checks.run({ ...msg })]);

        expect([a.status, b.status]).toEqual(['fulfilled', 'fulfilled']);
        const [da, db] = [a, b].map((x) => decided((x as PromiseFulfilledResult<SubmitOutcome>).value));
        expect(db).toEqual(da);
        expect(da).toMatchObject({ code: 'REQUIRED_FIELD_MISSING', reason: 'Missing HS grad year' });
        expect(await leadCount({ searchId: search.searchId })).toBe(1);
      }
    });
  });
});
