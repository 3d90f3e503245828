import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { Lead } from '../../../libs/domain/src';
import { LeadActivitySeed, opsOwnOffer } from './lead-activity-seed';
import { ops } from './ops-test-support';
import { campaign, partnerOffer } from '../../support/catalog-builder';

/**
 * `ops lead show`: a search with own and partner results, an offer left out,
 * a partner network asked, and three submits (accepted with a cap slot and
 * dedupe keys, refused by the buyer whose reply quotes the person, refused by
 * the checks); a direct post and its retry. The person's contact data are
 * canaries: none may appear in any output, text or JSON.
 */
describe('ops lead show', () => {
  let ds: DataSource;
  const id = () => randomUUID();
  const ids = {
    aff: id(),
    camp: id(),
    sA: id(),
    sB: id(),
    sC: id(),
    sD: id(),
    sP: id(),
    partner: id(),
    oA: id(),
    oB: id(),
    oC: id(),
    oD: id(),
    pOffer: id(),
  };
  const CANARY = {
    first: 'Zebulon',
    last: 'Quixotefield',
    email: 'zebulon.canary7@canarymail.example',
    phone: '5125550199',
    street: '742 Evergreen Terrace',
    dob: '1990-02-03',
    zip: '73301',
  };
  const FORBIDDEN = [
    'Zebulon',
    'Quixotefield',
    'zebulon.canary7',
    'canarymail',
    '5125550199',
    '555-0199',
    'Evergreen',
    '1990-02-03',
    '73301',
  ];
  const person: Lead = {
    personal: { first_name: CANARY.first, last_name: CANARY.last, email: CANARY.email, phone: CANARY.phone, date_of_birth: CANARY.dob },
    address: { address_line_1: CANARY.street, city: 'Austin', state: 'TX', zip_code: CANARY.zip },
    education: { education_level: 'associate', high_school_graduation_year: '2008' },
    background: { us_citizen: 'yes' },
  };
  const TCPA_A = 'I agree that North U may contact me by phone, text and email.';
  let searchId: string;
  let resultIds: Map<string, string>;
  const lead = { accepted: '', rejected: '', refused: '', post: '', retry: '' };

  const programs = [
    { value: 'bsn', label: 'BS in Nursing' },
    { value: 'rn-bsn', label: 'RN to BSN' },
  ];
  const own = (offerId: string, schoolId: string, name: string, tcpa: string, extra: Record<string, unknown> = {}) =>
    opsOwnOffer(offerId, schoolId, name, { tcpa_text: tcpa, programs, ...extra });

  beforeAll(async () => {
    const seed = await LeadActivitySeed.open();
    ds = seed.ds;
    await seed.catalog({
      affiliates: [{ id: ids.aff, name: 'Story Affiliate', status: 'active' }],
      schools: [
        { id: ids.sA, name: 'North U', logo_url: null },
        { id: ids.sB, name: 'South College', logo_url: null },
        { id: ids.sC, name: 'East Academy', logo_url: null },
        { id: ids.sD, name: 'West Institute', logo_url: null },
        { id: ids.sP, name: 'Partner School', logo_url: null },
      ],
      partners: [
        { id: ids.partner, name: 'Story Partner', adapter: 'sandbox', base_url: 'http://127.0.0.1:4100/partners/story', timeout_ms: 5000 },
      ],
      offers: [
        own(ids.oA, ids.sA, 'North Nursing', TCPA_A, { caps: [{ period: 'day', limit: 5, timezone: 'America/Chicago' }] }),
        own(ids.oB, ids.sB, 'South Health', 'South College may contact me.'),
        own(ids.oC, ids.sC, 'East Business', 'East Academy may contact me.'),
        own(ids.oD, ids.sD, 'West Tech', 'West may contact me.', { eligibility: { states: ['CA'] } }),
        partnerOffer(ids.pOffer, ids.sP, 'Partner Psychology', ids.partner, `ext-${ids.pOffer}`),
      ],
      campaigns: [
        campaign(ids.camp, ids.aff, 'Story campaign', [
          { offer_id: ids.oA, payout: 20, program_payouts: { bsn: 30 } },
          { offer_id: ids.oB, payout: 8 },
          { offer_id: ids.oC, payout: 5 },
          { offer_id: ids.oD, payout: 6 },
          { offer_id: ids.pOffer, payout: 12.5 },
        ]),
      ],
    });
    const apiKeyId = await seed.apiKey(ids.aff);
    const base = { affiliateId: ids.aff, campaignId: ids.camp, apiKeyId };
    const at = new Date(Date.now() - 60_000);
    const t = (ms: number) => new Date(at.getTime() + ms).toISOString();
    const tracking = { ip_address: '73.12.44.10', subid: 'story-7', note: `call ${CANARY.first} at (512) 555-0199 or ${CANARY.email}` };
    const s = await seed.search({
      ...base,
      at: t(0),
      lead: person,
      tracking,
      tcpaConsent: true,
      formCertUrl: 'https://cert.trustedform.com/abc123',
      universalLeadCert: 'LEADID-XYZ',
      shown: [
        {
          offerId: ids.oA,
          payout: 30,
          programs: [
            { value: 'bsn', label: 'BS in Nursing', payout: 30 },
            { value: 'rn-bsn', label: 'RN to BSN', payout: 20 },
          ],
        },
        { offerId: ids.pOffer, payout: 12.5, partner: true, programs: [{ value: 'psy', label: 'BA Psychology', payout: 12.5 }] },
        { offerId: ids.oB, payout: 8 },
        { offerId: ids.oC, payout: 5 },
      ],
      notShown: [{ offerId: ids.oD, reason: 'not_eligible', detail: 'states' }],
    });
    searchId = s.searchId;
    resultIds = s.resultIds;
    await seed.partnerCall(searchId, {
      partnerId: ids.partner,
      offerIds: [ids.pOffer],
      status: 'answered',
      latencyMs: 420,
      resultCount: 1,
    });
    const consent = (tcpaText: string) => ({
      tcpaConsent: true,
      tcpaText,
      buttonLabel: 'Get info',
      formCertUrl: 'https://cert.trustedform.com/abc123',
      universalLeadCert: 'LEADID-XYZ',
    });
    lead.accepted = await seed.submit({
      ...base,
      at: t(5_000),
      lead: person,
      offerId: ids.oA,
      searchId,
      resultId: resultIds.get(ids.oA),
      programId: 'bsn',
      answers: { hs_grad_year: '2008' },
      tracking,
      consent: consent(TCPA_A),
      decision: { status: 'accepted', code: 'ACCEPTED', reason: 'Lead accepted', decidedBy: 'buyer', payout: 30, afterMs: 400 },
      sale: { payout: 30, price: 45, capPeriods: ['day'] },
      attempt: { outcome: 'accepted', httpStatus: 200, latencyMs: 312, detail: 'buyer lead id NU-5531', startAfterMs: 40, durationMs: 320 },
    });
    lead.rejected = await seed.submit({
      ...base,
      at: t(6_000),
      lead: person,
      offerId: ids.oB,
      searchId,
      resultId: resultIds.get(ids.oB),
      programId: 'bsn',
      tracking,
      consent: consent('South College may contact me.'),
      decision: { status: 'rejected', code: 'BUYER_REJECTED', reason: 'Rejected - Client', decidedBy: 'buyer' },
      sale: { payout: 8, price: 45 },
      attempt: {
        outcome: 'rejected',
        httpStatus: 200,
        latencyMs: 150,
        startAfterMs: 30,
        durationMs: 155,
        detail: `Already enrolled: ${CANARY.first} ${CANARY.last} <${CANARY.email}>, 512-555-0199, ${CANARY.street}`,
      },
    });
    lead.refused = await seed.submit({
      ...base,
      at: t(7_000),
      lead: person,
      offerId: ids.oC,
      searchId,
      resultId: resultIds.get(ids.oC),
      tracking,
      consent: consent('East Academy may contact me.'),
      decision: { status: 'rejected', code: 'NOT_ELIGIBLE', reason: 'School already bought this lead exclusively', decidedBy: 'service' },
    });
    lead.post = await seed.submit({
      ...base,
      at: t(8_000),
      lead: person,
      offerId: ids.oA,
      consent: consent(TCPA_A),
      decision: { status: 'accepted', code: 'ACCEPTED', reason: 'Lead accepted', decidedBy: 'buyer', payout: 20 },
      sale: { payout: 20, price: 45, capPeriods: ['day'] },
      attempt: { outcome: 'accepted', httpStatus: 200, latencyMs: 200, detail: null, startAfterMs: 20, durationMs: 210 },
    });
    lead.retry = await seed.submit({
      ...base,
      at: t(9_000),
      lead: person,
      offerId: ids.oA,
      groupId: lead.post,
      originLeadId: lead.post,
      decision: { status: 'rejected', code: 'DUPLICATE', reason: 'Duplicate - Offer', decidedBy: 'service' },
    });
  });

  afterAll(async () => {
    await ds?.destroy();
  });

  const noContactData = (output: string) => {
    for (const canary of FORBIDDEN) expect(output.toLowerCase()).not.toContain(canary.toLowerCase());
  };

  it('by a submit id: the whole story of its search, as text, contact data masked', async () => {
    const run = await ops('lead', 'show', lead.accepted);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;
    noContactData(out);
    const line = (re: RegExp) => expect(out).toMatch(re);

    line(new RegExp(`^Lead ${lead.accepted}: a result submit in lead group ${searchId}$`, 'm'));
    // The search.
    line(new RegExp(`^Search ${searchId}$`, 'm'));
    line(new RegExp(`^  affiliate +Story Affiliate \\(${ids.aff}\\)$`, 'm'));
    line(new RegExp(`^  campaign +Story campaign \\(${ids.camp}\\)$`, 'm'));
    line(/^ {2}test +no$/m);
    line(/^ {2}consumer ip +73\.12\.44\.10 \(consumer\)$/m);
    line(/^ {2}tracking +ip_address=73\.12\.44\.10, note=call Z\*\*\* at \*{8}99 or z\*\*\*@c\*\*\*\.example, subid=story-7$/m);
    line(/^ {2}form cert url +https:\/\/cert\.trustedform\.com\/abc123$/m);
    line(/^ {2}sold +1 time\(s\)$/m);
    // The lead, masked.
    line(/^ {2}personal\.first_name +Z\*\*\*$/m);
    line(/^ {2}personal\.last_name +Q\*\*\*$/m);
    line(/^ {2}personal\.email +z\*\*\*@c\*\*\*\.example$/m);
    line(/^ {2}personal\.phone +\*{8}99$/m);
    line(/^ {2}personal\.date_of_birth +1990-\*\*-\*\*$/m);
    line(/^ {2}address\.address_line_1 +\*\*\*$/m);
    line(/^ {2}address\.zip_code +733\*\*$/m);
    line(/^ {2}address\.city +Austin$/m);
    line(/^ {2}education\.education_level +associate$/m);
    // Results in rank order, with the payouts shown.
    line(/^Results shown \(4\)$/m);
    line(
      new RegExp(
        `^ +1  ${resultIds.get(ids.oA)}  North Nursing \\(${ids.oA}\\) +North U +own +shared +30\\.00  bsn 30\\.00, rn-bsn 20\\.00 `,
        'm',
      ),
    );
    line(new RegExp(`^ +2  ${resultIds.get(ids.pOffer)}  Partner Psychology .*partner Story Partner +shared +12\\.50  psy 12\\.50 `, 'm'));
    // The search-time checks and the partner asked.
    line(new RegExp(`^  West Tech \\(${ids.oD}\\) +no +not_eligible +states$`, 'm'));
    line(new RegExp(`^  North Nursing \\(${ids.oA}\\) +yes +result ${resultIds.get(ids.oA)} +-$`, 'm'));
    line(new RegExp(`^  Story Partner \\(${ids.partner}\\) +answered +\\S+ +\\S+ +420 +1 +-$`, 'm'));
    // Three submits, the one asked for marked.
    line(/^Submits in this lead group \(3\)$/m);
    const [accepted, rejected, refused] = out.split(/^ {2}Submit /m).slice(1);
    expect(accepted).toMatch(new RegExp(`^${lead.accepted}  <- the id asked for`));
    expect(accepted).toMatch(/^ {4}decision +ACCEPTED \(accepted\): Lead accepted$/m);
    expect(accepted).toMatch(/^ {4}decided +\S+Z by buyer$/m);
    expect(accepted).toMatch(/^ {4}payout +30\.00$/m);
    expect(accepted).toMatch(/^ {4}program +bsn$/m);
    expect(accepted).toMatch(/^ {4}answers +hs_grad_year=2008$/m);
    expect(accepted).toMatch(/^ {4}consent +yes at \S+ from 73\.12\.44\.10; button "Get info"$/m);
    expect(accepted).toContain(`      statement           ${TCPA_A}\n`);
    expect(accepted).toMatch(/^ {4} {2}universal lead id +LEADID-XYZ$/m);
    expect(accepted).toMatch(/^ {4}sale +accepted, shared, payout 30\.00, price 45\.00; reserved \S+, last change \S+$/m);
    expect(accepted).toMatch(new RegExp(`^ {4}cap slot +offer:${ids.oA} day from \\S+ \\(2 of 5 used now\\)$`, 'm'));
    expect(accepted).toMatch(/^ {4}dedupe keys +email, name_zip_dob, phone$/m);
    expect(accepted).toMatch(/^ {6}1 +\S+Z +\S+Z +320 +accepted +200 +312 +buyer lead id NU-5531$/m);

    expect(rejected).toMatch(/^ {4}decision +BUYER_REJECTED \(rejected\): Rejected - Client$/m);
    expect(rejected).toMatch(/^ {4}decided +\S+ by buyer$/m);
    expect(rejected).toMatch(/^ {4}payout +0\.00 \(paid only when accepted\)$/m);
    expect(rejected).toMatch(/^ {4}sale +released, shared, payout 8\.00, price 45\.00/m);
    expect(rejected).toMatch(/^ {4}dedupe keys +none held$/m);
    // The buyer's reply quoted the person: shown masked.
    expect(rejected).toMatch(/ +rejected +200 +150 +Already enrolled: Z\*\*\* Q\*\*\* <z\*\*\*@c\*\*\*\.example>, \*{8}99, \*\*\*$/m);

    expect(refused).toMatch(/^ {4}decision +NOT_ELIGIBLE \(rejected\): School already bought this lead exclusively$/m);
    expect(refused).toMatch(/^ {4}decided +\S+ by service$/m);
    expect(refused).toMatch(/^ {4}sale +none/m);
    expect(refused).toMatch(/^ {4}delivery +no attempt \(never sent to the buyer\)$/m);
  });

  it('--json carries the same story with stable keys, masked as well', async () => {
    const run = await ops('lead', 'show', searchId, '--json');
    expect(run.code).toBe(0);
    noContactData(run.stdout);
    const story = JSON.parse(run.stdout);
    expect(Object.keys(story)).toEqual([
      'asked',
      'lead_group_id',
      'lead',
      'lead_sealed',
      'search',
      'partner_calls',
      'results',
      'offer_checks',
      'submits',
    ]);
    expect(story.asked).toEqual({ id: searchId, is: 'search' });
    expect(story.lead_group_id).toBe(searchId);
    expect(story.lead).toEqual({
      personal: { first_name: 'Z***', last_name: 'Q***', email: 'z***@c***.example', phone: '********99', date_of_birth: '1990-**-**' },
      address: { address_line_1: '***', city: 'Austin', state: 'TX', zip_code: '733**' },
      education: { education_level: 'associate', high_school_graduation_year: '2008' },
      background: { us_citizen: 'yes' },
    });
    expect(story.search).toMatchObject({
      id: searchId,
      affiliate: { id: ids.aff, name: 'Story Affiliate' },
      campaign: { id: ids.camp, name: 'Story campaign' },
      is_test: false,
      consumer_ip: '73.12.44.10',
      ip_source: 'consumer',
      tcpa_consent: true,
      universal_lead_cert: 'LEADID-XYZ',
      accepted_count: 1,
    });
    expect(story.results.map((r: { rank: number; offer: { id: string }; payout: number }) => [r.rank, r.offer.id, r.payout])).toEqual([
      [1, ids.oA, 30],
      [2, ids.pOffer, 12.5],
      [3, ids.oB, 8],
      [4, ids.oC, 5],
    ]);
    expect(story.offer_checks).toContainEqual({
      offer: { id: ids.oD, name: 'West Tech' },
      shown: false,
      result_id: null,
      reason: 'not_eligible',
      detail: 'states',
      partner: null,
    });
    expect(story.partner_calls).toEqual([
      expect.objectContaining({
        partner: { id: ids.partner, name: 'Story Partner' },
        status: 'answered',
        latency_ms: 420,
        result_count: 1,
      }),
    ]);
    expect(story.submits.map((s: { id: string }) => s.id)).toEqual([lead.accepted, lead.rejected, lead.refused]);
    const [accepted, rejected, refused] = story.submits;
    expect(accepted.decision).toEqual({
      status: 'accepted',
      code: 'ACCEPTED',
      reason: 'Lead accepted',
      field: null,
      decided_by: 'buyer',
      decided_at: expect.any(String),
      payout: 30,
    });
    expect(accepted.consent).toMatchObject({ tcpa_consent: true, tcpa_text: TCPA_A, button_label: 'Get info', ip: '73.12.44.10' });
    expect(accepted.sale).toMatchObject({ status: 'accepted', offer_type: 'shared', payout: 30, price: 45 });
    expect(accepted.sale.cap_slots).toEqual([
      { scope: `offer:${ids.oA}`, period: 'day', period_start: expect.any(String), used_now: 2, limit: 5 },
    ]);
    expect(accepted.dedupe_keys).toEqual(['email', 'name_zip_dob', 'phone']);
    expect(accepted.delivery_attempts).toEqual([
      {
        attempt: 1,
        started_at: expect.any(String),
        finished_at: expect.any(String),
        duration_ms: 320,
        outcome: 'accepted',
        http_status: 200,
        latency_ms: 312,
        detail: 'buyer lead id NU-5531',
      },
    ]);
    expect(accepted.lead).toBeNull(); // the group's lead, unchanged
    expect(rejected.delivery_attempts[0].detail).toBe('Already enrolled: Z*** Q*** <z***@c***.example>, ********99, ***');
    expect(rejected.sale.status).toBe('released');
    expect(refused.decision).toMatchObject({ code: 'NOT_ELIGIBLE', decided_by: 'service' });
    expect(refused.delivery_attempts).toEqual([]);
  });

  it('by a direct post retry: its group is the first post, no search', async () => {
    const run = await ops('lead', 'show', lead.retry, '--json');
    expect(run.code).toBe(0);
    noContactData(run.stdout);
    const story = JSON.parse(run.stdout);
    expect(story).toMatchObject({
      asked: { id: lead.retry, is: 'submit' },
      lead_group_id: lead.post,
      search: null,
      results: [],
      offer_checks: [],
      partner_calls: [],
    });
    expect(
      story.submits.map((s: { id: string; kind: string; origin_lead_id: string | null; decision: { code: string } }) => [
        s.id,
        s.kind,
        s.origin_lead_id,
        s.decision.code,
      ]),
    ).toEqual([
      [lead.post, 'direct_post', null, 'ACCEPTED'],
      [lead.retry, 'direct_post', lead.post, 'DUPLICATE'],
    ]);

    const text = await ops('lead', 'show', lead.retry);
    expect(text.code).toBe(0);
    noContactData(text.stdout);
    expect(text.stdout).toMatch(new RegExp(`^Direct post group ${lead.post} \\(no search\\): first post at \\S+$`, 'm'));
    expect(text.stdout).toMatch(new RegExp(`^ {4}kind +direct post \\(retry of ${lead.post}\\)$`, 'm'));
    expect(text.stdout).not.toMatch(/^Results shown/m);
  });

  it('an unknown id is refused (exit 1); a malformed one is a usage error (exit 2)', async () => {
    const unknown = randomUUID();
    const run = await ops('lead', 'show', unknown);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`error: no search or submit has svc_lead_id ${unknown}\n`);

    const bad = await ops('lead', 'show', 'not-a-lead');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/value 'not-a-lead' is invalid for argument 'svc_lead_id'\. must be a UUID/);
    expect((await ops('lead', 'show')).code).toBe(2);
  });
});
