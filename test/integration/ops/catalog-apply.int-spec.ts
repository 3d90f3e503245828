import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DEFAULT_SEARCH_FIELDS } from '@lr/domain';
import { CatalogRepository, createDataSource } from '@lr/persistence';
import { applyCatalog } from '../../../apps/ops/src/catalog/apply-catalog';
import { TEST_DATABASE_URL } from '../../support/test-env';
import { CatalogJson, dumpCatalogRows, freshCatalog, idsOf, ops, writeTemp } from './ops-test-support';
import { campaign } from '../../support/catalog-builder';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

describe('ops catalog apply', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 2, timeoutMs: 5000 });
    await ds.initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
  });

  describe('the example of CATALOG.md', () => {
    const catalog = freshCatalog('catalog.example.json');
    const file = writeTemp('catalog.json', catalog);

    it('is applied, with a summary of what was created', async () => {
      const run = await ops('catalog', 'apply', file);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/affiliates\s+1 created, 0 updated, 0 unchanged/);
      expect(run.stdout).toMatch(/schools\s+2 created/);
      expect(run.stdout).toMatch(/offers\s+2 created/);
      expect(run.stdout).toMatch(/programs\s+2 created/);
      expect(run.stdout).toMatch(/questions\s+2 created/);
      expect(run.stdout).toMatch(/campaign_offers\s+2 created/);
      expect(run.stdout).toMatch(/caps\s+2 created/);

      const [offer] = await ds.query('SELECT * FROM offers WHERE id = $1', [catalog.offers[0].id]);
      expect(offer).toMatchObject({
        name: 'Northfield Online Nursing',
        source: 'own',
        offer_type: 'shared',
        status: 'active',
        priority: 10,
        price: '45.00',
        result_ttl_seconds: 900,
        duplicate_window_days: 30,
        partner_id: null,
        eligibility: catalog.offers[0].eligibility,
        delivery: catalog.offers[0].delivery,
      });
      const [partnerOffer] = await ds.query('SELECT * FROM offers WHERE id = $1', [catalog.offers[1].id]);
      expect(partnerOffer).toMatchObject({
        source: 'partner',
        partner_id: catalog.partners[0].id,
        external_id: 'westlake-001',
        price: null,
        delivery: null,
      });

      const programs = await ds.query('SELECT value, label, eligibility, position FROM programs WHERE offer_id = $1 ORDER BY position', [
        offer.id,
      ]);
      expect(programs).toEqual([
        { value: 'bsn', label: 'BS in Nursing', eligibility: { education_levels: ['associate', 'bachelor'] }, position: 0 },
        { value: 'rn-bsn', label: 'RN to BSN', eligibility: {}, position: 1 },
      ]);
      const questions = await ds.query(
        'SELECT name, type, required, required_when, options FROM questions WHERE offer_id = $1 ORDER BY position',
        [offer.id],
      );
      expect(questions[1]).toEqual({
        name: 'rn_license',
        type: 'select',
        required: false,
        required_when: { program_ids: ['rn-bsn'] },
        options: [
          { value: 'yes', label: 'Yes' },
          { value: 'no', label: 'No' },
        ],
      });
      const caps = await ds.query(
        'SELECT campaign_id, period, "limit", timezone FROM caps WHERE offer_id = $1 ORDER BY campaign_id NULLS FIRST',
        [offer.id],
      );
      expect(caps).toEqual([
        { campaign_id: null, period: 'day', limit: 50, timezone: 'America/New_York' },
        { campaign_id: catalog.campaigns[0].id, period: 'day', limit: 20, timezone: 'America/New_York' },
      ]);
      const campaignOffers = await ds.query(
        'SELECT offer_id, payout, program_payouts, position FROM campaign_offers WHERE campaign_id = $1 ORDER BY position',
        [catalog.campaigns[0].id],
      );
      expect(campaignOffers).toEqual([
        { offer_id: offer.id, payout: '22.50', program_payouts: { bsn: 30 }, position: 0 },
        { offer_id: partnerOffer.id, payout: null, program_payouts: null, position: 1 },
      ]);
    });

    it('applied a second time changes nothing: same rows, same updated_at', async () => {
      const before = await dumpCatalogRows(ds, catalog);
      const run = await ops('catalog', 'apply', file);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/\(no changes\)/);
      expect(run.stdout).not.toMatch(/[1-9]\d* (created|updated|removed)/);
      const after = await dumpCatalogRows(ds, catalog);
      expect(after).toEqual(before);
      expect(after.offers).toHaveLength(2);
      expect(after.caps).toHaveLength(2);
    });

    it('an edited file writes only the rows that differ, and replaces an offer’s lists', async () => {
      const before = await dumpCatalogRows(ds, catalog);
      const edited = clone(catalog);
      edited.offers[0].name = 'Northfield Online Nursing (BSN)';
      edited.offers[0].programs = [edited.offers[0].programs[0]]; // rn-bsn dropped
      edited.offers[0].form_fields = [edited.offers[0].form_fields[0]]; // its question too
      edited.offers[0].caps = [
        { period: 'day', limit: 75 },
        { period: 'total', limit: 1000, timezone: 'UTC' },
      ];
      edited.campaigns[0].offers = [edited.campaigns[0].offers[0]]; // partner offer taken off the campaign
      edited.campaigns[0].offers[0].caps = []; // campaign cap removed

      const outcome = await applyCatalog(ds, edited);
      expect(outcome).toEqual({
        ok: true,
        contactAtSearch: [],
        summary: {
          affiliates: { created: 0, updated: 0, unchanged: 1, removed: 0 },
          schools: { created: 0, updated: 0, unchanged: 2, removed: 0 },
          partners: { created: 0, updated: 0, unchanged: 1, removed: 0 },
          offers: { created: 0, updated: 1, unchanged: 1, removed: 0 },
          programs: { created: 0, updated: 0, unchanged: 1, removed: 1 },
          questions: { created: 0, updated: 0, unchanged: 1, removed: 1 },
          campaigns: { created: 0, updated: 0, unchanged: 1, removed: 0 },
          campaign_offers: { created: 0, updated: 0, unchanged: 1, removed: 1 },
          caps: { created: 1, updated: 1, unchanged: 0, removed: 1 },
        },
      });
      const after = await dumpCatalogRows(ds, edited);
      const updatedAt = (rows: unknown[], id: string) =>
        (rows as Array<{ id: string; updated_at: string }>).find((r) => r.id === id)?.updated_at;
      expect(updatedAt(after.offers, catalog.offers[0].id)).not.toEqual(updatedAt(before.offers, catalog.offers[0].id));
      expect(updatedAt(after.offers, catalog.offers[1].id)).toEqual(updatedAt(before.offers, catalog.offers[1].id));
      expect(after.affiliates).toEqual(before.affiliates);
      expect((after.programs as Array<{ value: string }>).map((p) => p.value)).toEqual(['bsn']);
      expect(after.campaign_offers).toHaveLength(1);
      const caps = await ds.query('SELECT campaign_id, period, "limit", timezone FROM caps WHERE offer_id = $1 ORDER BY period', [
        catalog.offers[0].id,
      ]);
      expect(caps).toEqual([
        { campaign_id: null, period: 'day', limit: 75, timezone: 'America/New_York' },
        { campaign_id: null, period: 'total', limit: 1000, timezone: 'UTC' },
      ]);

      // And back: the original file restores the original content.
      const back = await ops('catalog', 'apply', file);
      expect(back.code).toBe(0);
      const restored = await dumpCatalogRows(ds, catalog);
      expect(restored.programs).toHaveLength(2);
      expect(restored.campaign_offers).toHaveLength(2);
      expect(restored.caps).toHaveLength(2);
    });

    it('accepts references to what the database already holds', async () => {
      const campaignOnly: CatalogJson = {
        campaigns: [
          campaign(
            randomUUID(),
            catalog.affiliates[0].id,
            'Second campaign',
            [{ offer_id: catalog.offers[0].id, program_payouts: { 'rn-bsn': 12.5 } }],
            {
              status: 'paused',
            },
          ),
        ],
      };
      const outcome = await applyCatalog(ds, campaignOnly);
      expect(outcome.ok).toBe(true);
      const bad = clone(campaignOnly);
      bad.campaigns[0].offers[0].program_payouts = { nope: 1 };
      const refused = await applyCatalog(ds, bad);
      expect(refused).toEqual({
        ok: false,
        issues: [
          {
            path: 'campaigns[0].offers[0].program_payouts.nope',
            message: expect.stringContaining(`unknown program "nope" of offer ${catalog.offers[0].id}`),
          },
        ],
      });
    });
  });

  describe('a broken file is refused, naming the path, and nothing is applied', () => {
    const base = freshCatalog('catalog.example.json');
    let baseDump: Record<string, unknown[]>;

    beforeAll(async () => {
      const outcome = await applyCatalog(ds, base);
      expect(outcome.ok).toBe(true);
      baseDump = await dumpCatalogRows(ds, base);
    });

    /** Each variant also renames the affiliate and adds a new school: neither may reach the database. */
    const variants: Array<[string, (c: CatalogJson) => void, RegExp]> = [
      ['unknown key', (c) => (c.offers[0].colour = 'red'), /^ {2}offers\[0\]\.colour: unknown key/m],
      ['unknown top-level key', (c) => (c.sponsors = []), /^ {2}sponsors: unknown key/m],
      ['wrong type', (c) => (c.offers[0].programs[1].value = 7), /^ {2}offers\[0\]\.programs\[1\]\.value: must be a string/m],
      ['wrong type of a number', (c) => (c.offers[0].priority = '10'), /^ {2}offers\[0\]\.priority: must be an integer/m],
      [
        'bad reference',
        (c) => c.campaigns[0].offers.push({ offer_id: '7b1e4f0a-0000-4000-8000-000000000001' }),
        /^ {2}campaigns\[0\]\.offers\[2\]\.offer_id: unknown offer 7b1e4f0a-0000-4000-8000-000000000001/m,
      ],
      [
        'bad school reference',
        (c) => (c.offers[1].school_id = '7b1e4f0a-0000-4000-8000-000000000002'),
        /^ {2}offers\[1\]\.school_id: unknown school 7b1e4f0a-0000-4000-8000-000000000002/m,
      ],
      [
        'bad vocabulary value',
        (c) => c.offers[0].eligibility.education_levels.push('phd'),
        /^ {2}offers\[0\]\.eligibility\.education_levels\[5\]: must be an education level, one of .*; got "phd"/m,
      ],
      [
        'state not a USPS code',
        (c) => (c.offers[0].eligibility.states = ['ca']),
        /^ {2}offers\[0\]\.eligibility\.states\[0\]: must be a USPS state code/m,
      ],
      ['partner offer with a price', (c) => (c.offers[1].price = 10), /^ {2}offers\[1\]\.price: not allowed on a partner offer/m],
      ['own offer without delivery', (c) => delete c.offers[0].delivery, /^ {2}offers\[0\]\.delivery: is required on an own offer/m],
      [
        'required_when naming another program',
        (c) => (c.offers[0].form_fields[1].required_when.program_ids = ['msn']),
        /^ {2}offers\[0\]\.form_fields\[1\]\.required_when\.program_ids\[0\]: unknown program "msn"/m,
      ],
      [
        'select without options',
        (c) => delete c.offers[0].form_fields[0].options,
        /^ {2}offers\[0\]\.form_fields\[0\]\.options: is required on a select question/m,
      ],
      [
        'bad time zone',
        (c) => (c.offers[0].caps[0].timezone = 'America/Nowhere'),
        /^ {2}offers\[0\]\.caps\[0\]\.timezone: must be an IANA time zone/m,
      ],
      [
        'bad cap period',
        (c) => (c.campaigns[0].offers[0].caps[0].period = 'year'),
        /^ {2}campaigns\[0\]\.offers\[0\]\.caps\[0\]\.period: must be one of hour, day, week, month, total/m,
      ],
      ['duplicate id', (c) => c.schools.push({ ...c.schools[0] }), /^ {2}schools\[\d\]\.id: duplicate id/m],
      ['not a UUID', (c) => (c.affiliates[0].id = 'acme'), /^ {2}affiliates\[0\]\.id: must be a UUID/m],
    ];

    it.each(variants)('%s', async (_name, breakIt, expected) => {
      const broken = clone(base);
      broken.affiliates[0].name = 'Renamed by a refused file';
      const newSchool = { id: randomUUID(), name: 'Never stored' };
      broken.schools.push(newSchool);
      breakIt(broken);

      const run = await ops('catalog', 'apply', writeTemp('broken.json', broken));
      expect(run.code).not.toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/nothing applied/);
      expect(run.stderr).toMatch(expected);

      expect(await dumpCatalogRows(ds, base)).toEqual(baseDump);
      expect(await ds.query('SELECT id FROM schools WHERE id = $1', [newSchool.id])).toEqual([]);
    });

    it('lists every error of the file at once', async () => {
      const broken = clone(base);
      broken.offers[0].colour = 'red';
      broken.offers[0].programs[1].value = 7;
      broken.offers[0].eligibility.states.push('XX');
      broken.campaigns[0].affiliate_id = randomUUID();
      const run = await ops('catalog', 'apply', writeTemp('broken.json', broken));
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/4 errors; nothing applied/);
      expect(run.stderr).toMatch(/offers\[0\]\.colour: unknown key/);
      expect(run.stderr).toMatch(/offers\[0\]\.programs\[1\]\.value: must be a string/);
      expect(run.stderr).toMatch(/offers\[0\]\.eligibility\.states\[3\]: must be a USPS state code/);
      expect(run.stderr).toMatch(/campaigns\[0\]\.affiliate_id: unknown affiliate/);
      expect(await dumpCatalogRows(ds, base)).toEqual(baseDump);
    });

    it('refuses a file that is not JSON, or missing', async () => {
      const notJson = await ops('catalog', 'apply', writeTemp('bad.json', '{"offers": [ {"id": 1}, ]}'));
      expect(notJson.code).toBe(1);
      expect(notJson.stderr).toMatch(/bad\.json: not valid JSON/);
      const missing = await ops('catalog', 'apply', '/nonexistent/catalog.json');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/cannot read the file \(ENOENT\)/);
      const noArg = await ops('catalog', 'apply');
      expect(noArg.code).toBe(2);
    });

    it('the database constraints back the file rules', async () => {
      const [offer] = idsOf(base).offers;
      await expect(ds.query(`UPDATE offers SET offer_type = 'semi' WHERE id = $1`, [offer])).rejects.toThrow(/ck_offers_offer_type/);
      await expect(ds.query(`UPDATE offers SET delivery = NULL WHERE id = $1`, [offer])).rejects.toThrow(/ck_offers_source_shape/);
      await expect(ds.query(`INSERT INTO caps (offer_id, period, "limit") VALUES ($1, 'day', 5)`, [offer])).rejects.toThrow(
        /ux_caps_offer_period/,
      );
    });
  });

  describe('a json partner', () => {
    it('stores its settings as given, applies twice without changes, and the running services read them with the partner', async () => {
      const example = freshCatalog('catalog.example.json');
      const exchange = freshCatalog('exchange-partner.json');
      const catalog = { ...example, partners: [...example.partners, exchange] };
      catalog.offers[1].partner_id = exchange.id;
      const first = await applyCatalog(ds, catalog);
      expect(first.ok).toBe(true);
      const { id, name, adapter, base_url, timeout_ms, ...settings } = exchange;
      const [row] = await ds.query('SELECT name, adapter, base_url, timeout_ms, settings FROM partners WHERE id = $1', [id]);
      expect(row).toEqual({ name, adapter, base_url, timeout_ms, settings });
      const [sandboxRow] = await ds.query('SELECT settings FROM partners WHERE id = $1', [example.partners[0].id]);
      expect(sandboxRow).toEqual({ settings: null });

      const before = await dumpCatalogRows(ds, catalog);
      const second = await applyCatalog(ds, catalog);
      expect(second.ok && Object.values(second.summary).every((c) => c.created + c.updated + c.removed === 0)).toBe(true);
      expect(await dumpCatalogRows(ds, catalog)).toEqual(before);

      const offers = await new CatalogRepository(ds).campaignOffers(catalog.campaigns[0].id);
      expect(offers.find((o) => o.offerId === catalog.offers[1].id)?.partner).toEqual({
        id,
        name,
        adapter,
        baseUrl: base_url,
        timeoutMs: timeout_ms,
        settings,
      });
    });
  });

  describe('catalog validate', () => {
    it('checks as apply does and writes nothing: names a partner sent contact data at search, refuses a literal credential', async () => {
      const exchange = freshCatalog('exchange-partner.json');
      exchange.search_fields = [...DEFAULT_SEARCH_FIELDS, 'lead.personal.email', 'lead.personal.phone'];
      const valid = await ops('catalog', 'validate', writeTemp('validate.json', { partners: [exchange] }));
      expect(valid.code).toBe(0);
      expect(valid.stdout).toContain('is valid (nothing applied)');
      expect(valid.stdout).toContain(
        `partner "${exchange.name}" (${exchange.id}) receives contact data at search: lead.personal.email, lead.personal.phone`,
      );
      expect(await ds.query('SELECT id FROM partners WHERE id = $1', [exchange.id])).toEqual([]);

      const literal = { ...exchange, headers: { 'X-Api-Key': 'live-key-123' } };
      const refused = await ops('catalog', 'validate', writeTemp('literal.json', { partners: [literal] }));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'partners[0].headers.X-Api-Key: carries a credential and must be an environment reference ${env:NAME}, never a literal value',
      );
      expect(refused.stderr).not.toContain('live-key-123');
    });
  });

  describe('the demo catalog', () => {
    it('is valid and applies twice without changes', async () => {
      const demo = freshCatalog('demo-catalog.json');
      const first = await applyCatalog(ds, demo);
      expect(first.ok).toBe(true);
      if (!first.ok) return;
      expect(first.summary.offers.created).toBe(6);
      const before = await dumpCatalogRows(ds, demo);
      const second = await applyCatalog(ds, demo);
      expect(second.ok && Object.values(second.summary).every((c) => c.created + c.updated + c.removed === 0)).toBe(true);
      expect(await dumpCatalogRows(ds, demo)).toEqual(before);
    });
  });
});
