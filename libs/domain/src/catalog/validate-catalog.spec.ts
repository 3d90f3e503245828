import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateCatalog } from './validate-catalog';
import type { KnownCatalogRefs } from './catalog.types';

const ROOT = join(__dirname, '../../../..');
const fixture = (name: string) =>
  JSON.parse(readFileSync(name === 'demo-catalog.json' ? join(ROOT, 'demo/catalog.json') : join(ROOT, 'test/fixtures', name), 'utf8'));
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const messages = (input: unknown, known?: KnownCatalogRefs) => validateCatalog(input, known).issues.map((i) => `${i.path}: ${i.message}`);

describe('validateCatalog', () => {
  const example = fixture('catalog.example.json');

  it.each(['catalog.example.json', 'demo-catalog.json'])('accepts %s and fills defaults', (name) => {
    const { catalog, issues } = validateCatalog(fixture(name));
    expect(issues).toEqual([]);
    expect(catalog).not.toBeNull();
  });

  it('fills the defaults of optional keys', () => {
    const { catalog } = validateCatalog(example);
    const partnerOffer = catalog!.offers[1];
    expect(partnerOffer).toMatchObject({
      priority: 0,
      price: null,
      tcpa_text: null,
      duplicate_window_days: 30,
      eligibility: {},
      programs: [],
      form_fields: [],
      caps: [],
      delivery: null,
    });
    expect(catalog!.campaigns[0].offers[0].caps).toEqual([{ period: 'day', limit: 20, timezone: 'America/New_York' }]);
    expect(catalog!.campaigns[0].offers[1]).toEqual({ offer_id: example.offers[1].id, payout: null, program_payouts: null, caps: [] });
    expect(catalog!.schools[1].logo_url).toBeNull();
  });

  it('accepts an empty file and lower-cases ids', () => {
    expect(validateCatalog({})).toEqual({ catalog: { affiliates: [], schools: [], partners: [], offers: [], campaigns: [] }, issues: [] });
    const upper = { affiliates: [{ id: 'ABCDEF01-2345-4678-9ABC-DEF012345678', name: 'A', status: 'active' }] };
    expect(validateCatalog(upper).catalog!.affiliates[0].id).toBe('abcdef01-2345-4678-9abc-def012345678');
  });

  it('refuses a root that is not an object', () => {
    expect(messages([])).toEqual(['$: must be an object, got an array']);
    expect(messages({ offers: {} })).toEqual(['offers: must be an array, got an object']);
  });

  it('names unknown keys and missing required keys by path', () => {
    const c = clone(example);
    c.offers[0].programs[0].colour = 'red';
    delete c.affiliates[0].status;
    c.campaigns[0].offers[0].caps[0].every = 'day';
    expect(messages(c)).toEqual([
      expect.stringMatching(/^affiliates\[0\]\.status: is required$/),
      expect.stringMatching(/^offers\[0\]\.programs\[0\]\.colour: unknown key \(allowed: value, label, eligibility\)$/),
      expect.stringMatching(/^campaigns\[0\]\.offers\[0\]\.caps\[0\]\.every: unknown key/),
    ]);
  });

  it('checks types, ranges and money', () => {
    const c = clone(example);
    c.affiliates[0].dupe_check = 'yes';
    c.offers[0].price = 10.005;
    c.offers[0].result_ttl_seconds = 0;
    c.offers[0].priority = 1.5;
    c.campaigns[0].offers[0].payout = -1;
    c.partners[0].base_url = 'ftp://example.org';
    expect(messages(c)).toEqual([
      'affiliates[0].dupe_check: must be a boolean, got the string "yes"',
      'partners[0].base_url: must be an http(s) URL, got the string "ftp://example.org"',
      'offers[0].priority: must be an integer, got number 1.5',
      'offers[0].price: must have at most 2 decimals, got 10.005',
      'offers[0].result_ttl_seconds: must be between 1 and 86400, got 0',
      'campaigns[0].offers[0].payout: must not be negative, got -1',
    ]);
  });

  it('checks enums', () => {
    const c = clone(example);
    c.offers[0].offer_type = 'exclusive-ish';
    c.offers[0].status = 'ACTIVE';
    c.offers[0].form_fields[0].type = 'radio';
    expect(messages(c)).toEqual([
      'offers[0].offer_type: must be one of shared, exclusive, true_exclusive; got "exclusive-ish"',
      'offers[0].status: must be one of active, paused; got "ACTIVE"',
      'offers[0].form_fields[0].type: must be one of select, text, number; got "radio"',
    ]);
  });

  it('checks eligibility keys, vocabularies and ranges', () => {
    const c = clone(example);
    const e = c.offers[0].eligibility;
    e.states = ['CA', 'ca', 'CA'];
    e.min_age = 70;
    e.learning_preferences = [];
    e.zip_prefixes = ['9a'];
    e.income = 5;
    c.offers[0].programs[0].eligibility.military_affiliations = ['marine'];
    expect(messages(c)).toEqual([
      'offers[0].programs[0].eligibility.military_affiliations[0]: must be a military affiliation, one of none, active_duty, veteran, reserve, national_guard, spouse, dependent; got "marine"',
      expect.stringMatching(/^offers\[0\]\.eligibility\.income: unknown key \(allowed: states, min_age/),
      expect.stringMatching(/^offers\[0\]\.eligibility\.states\[1\]: must be a USPS state code, one of AL, .*; got "ca"$/),
      'offers[0].eligibility.states[2]: duplicate value "CA" (also at offers[0].eligibility.states[0])',
      'offers[0].eligibility.learning_preferences: must not be empty',
      'offers[0].eligibility.min_age: must not be greater than max_age (70 > 65)',
      'offers[0].eligibility.zip_prefixes[0]: must be 1 to 5 digits, got "9a"',
    ]);
  });

  it('keeps partner offers free of what the partner supplies, and own offers complete', () => {
    const c = clone(example);
    c.offers[1].programs = [];
    c.offers[1].delivery = c.offers[0].delivery;
    delete c.offers[1].external_id;
    delete c.offers[0].price;
    c.offers[0].partner_id = c.partners[0].id;
    expect(messages(c)).toEqual([
      'offers[0].partner_id: only a partner offer has a partner_id',
      'offers[0].price: is required on an own offer',
      'offers[1].delivery: not allowed on a partner offer (the partner supplies it in its answer)',
      'offers[1].programs: not allowed on a partner offer (the partner supplies it in its answer)',
      "offers[1].external_id: is required on a partner offer (the partner's id of the offer)",
    ]);
  });

  it('checks questions: names, options, required_when', () => {
    const c = clone(example);
    const [q0, q1] = c.offers[0].form_fields;
    q0.name = 'tcpa_consent';
    q1.required_when.program_ids = ['rn-bsn', 'msn'];
    c.offers[0].form_fields.push({ name: 'notes', type: 'text', required: false, options: [{ value: 'a', label: 'A' }] });
    c.offers[0].form_fields.push({ name: 'Bad Name', type: 'select', required: true, options: [] });
    c.offers[0].form_fields.push({ ...q1, required_when: undefined });
    expect(messages(c)).toEqual([
      'offers[0].form_fields[0].name: "tcpa_consent" is a field of the submit request and cannot name a question',
      'offers[0].form_fields[1].required_when.program_ids[1]: unknown program "msn": not among this offer\'s programs (bsn, rn-bsn)',
      'offers[0].form_fields[2].options: only a select question has options',
      'offers[0].form_fields[3].name: must be lower-case letters, digits and _ starting with a letter (at most 64), got "Bad Name"',
      'offers[0].form_fields[3].options: must not be empty',
      'offers[0].form_fields[4].name: duplicate question name "rn_license" (also offers[0].form_fields[1].name)',
    ]);
  });

  it('checks caps: period, unique per scope, time zone', () => {
    const c = clone(example);
    c.offers[0].caps = [
      { period: 'day', limit: 1 },
      { period: 'day', limit: 2, timezone: 'Europe/Paris' },
      { period: 'fortnight', limit: 3 },
      { period: 'week', limit: 4, timezone: 'Nowhere/Land' },
    ];
    c.campaigns[0].offers[0].caps.push({ period: 'day', limit: 5 });
    expect(messages(c)).toEqual([
      'offers[0].caps[1].period: duplicate cap period "day" for the same scope (also offers[0].caps[0].period)',
      'offers[0].caps[2].period: must be one of hour, day, week, month, total; got "fortnight"',
      'offers[0].caps[3].timezone: must be an IANA time zone such as America/New_York, got the string "Nowhere/Land"',
      'campaigns[0].offers[0].caps[1].period: duplicate cap period "day" for the same scope (also campaigns[0].offers[0].caps[0].period)',
    ]);
  });

  it('checks references against the file and the database, and duplicate ids', () => {
    const c = clone(example);
    const schoolId = c.schools[1].id;
    c.schools = [c.schools[0], c.schools[0]];
    c.campaigns[0].offers[0].program_payouts = { bsn: 30, msn: 40 };
    c.campaigns[0].offers.push({ offer_id: '11111111-2222-4333-8444-555555555555' });
    expect(messages(c)).toEqual([
      `schools[1].id: duplicate id ${c.schools[0].id} in schools (also schools[0])`,
      `offers[1].school_id: unknown school ${schoolId}: not in this file's schools nor in the database`,
      `campaigns[0].offers[0].program_payouts.msn: unknown program "msn" of offer ${c.offers[0].id} (programs: bsn, rn-bsn)`,
      `campaigns[0].offers[2].offer_id: unknown offer 11111111-2222-4333-8444-555555555555: not in this file's offers nor in the database`,
    ]);

    const known: KnownCatalogRefs = {
      affiliateIds: new Set(),
      schoolIds: new Set([schoolId]),
      partnerIds: new Set(),
      offers: new Map([
        ['11111111-2222-4333-8444-555555555555', { source: 'own', partnerId: null, externalId: null, programValues: ['x'] }],
      ]),
    };
    c.schools = [c.schools[0]];
    c.campaigns[0].offers[0].program_payouts = { bsn: 30 };
    c.campaigns[0].offers[2].program_payouts = { x: 1, y: 2 };
    expect(messages(c, known)).toEqual([
      'campaigns[0].offers[2].program_payouts.y: unknown program "y" of offer 11111111-2222-4333-8444-555555555555 (programs: x)',
    ]);
  });

  it('refuses a second partner offer with the same external_id', () => {
    const c = clone(example);
    c.offers.push({ ...c.offers[1], id: '11111111-2222-4333-8444-555555555555' });
    expect(messages(c)).toEqual([
      expect.stringMatching(/^offers\[2\]\.external_id: partner .* already has an offer with external_id "westlake-001" \(offers\[1\]\)$/),
    ]);
    const known: KnownCatalogRefs = {
      affiliateIds: new Set(),
      schoolIds: new Set(),
      partnerIds: new Set(),
      offers: new Map([
        [
          '11111111-2222-4333-8444-555555555555',
          { source: 'partner', partnerId: example.partners[0].id, externalId: 'westlake-001', programValues: [] },
        ],
      ]),
    };
    expect(messages(example, known)).toEqual([
      expect.stringMatching(
        /^offers\[1\]\.external_id: partner .* already has offer 11111111-2222-4333-8444-555555555555 with external_id "westlake-001" in the database$/,
      ),
    ]);
  });

  it('refuses markup in the display strings a school or offer shows consumers', () => {
    const c = clone(example);
    c.schools[0].name = 'Northfield <b>University</b>';
    c.offers[0].name = 'Nursing" onmouseover="steal()';
    c.offers[0].tcpa_text = '<script>alert(1)</script>I agree';
    c.offers[0].programs[0].label = '<a href="javascript:alert(1)">BSN</a>';
    c.offers[0].programs[1].value = 'javascript:void(0)';
    c.offers[0].form_fields[0].label = 'Year <img src=x onerror=alert(1)>';
    c.offers[0].form_fields[0].options[0].label = '&lt;svg&gt;';
    expect(messages(c)).toEqual([
      'schools[0].name: must be plain text: it is shown to consumers and holds markup (an HTML tag)',
      'offers[0].programs[0].label: must be plain text: it is shown to consumers and holds markup (an HTML tag)',
      'offers[0].programs[1].value: must be plain text: it is shown to consumers and holds markup (a javascript:, vbscript: or data: URL)',
      'offers[0].name: must be plain text: it is shown to consumers and holds markup (an on…= event handler)',
      'offers[0].tcpa_text: must be plain text: it is shown to consumers and holds markup (an HTML tag)',
      'offers[0].form_fields[0].options[0].label: must be plain text: it is shown to consumers and holds markup (an HTML tag)',
      'offers[0].form_fields[0].label: must be plain text: it is shown to consumers and holds markup (an HTML tag)',
    ]);
  });

  describe('delivery settings', () => {
    /** The example with its own offer's delivery replaced. */
    const withDelivery = (delivery: unknown) => {
      const c = clone(example);
      c.offers[0].delivery = delivery;
      return c;
    };
    const json = (extra: Record<string, unknown> = {}) => ({ adapter: 'json', url: 'https://api.school.example/leads', ...extra });

    it('keeps a sandbox delivery with just adapter, url and timeout_ms as it was', () => {
      expect(validateCatalog(example).catalog!.offers[0].delivery).toEqual(example.offers[0].delivery);
    });

    it('accepts and stores a full json delivery as given', () => {
      const delivery = json({
        timeout_ms: 5000,
        headers: { Authorization: 'Bearer ${env:NORTHFIELD_TOKEN}', 'X-Vendor': 'lead-router' },
        field_map: {
          'contact.email': 'lead.personal.email',
          'contact.zip': 'lead.address.zip_code',
          sub_id: 'tracking.subid',
          grad_year: 'answers.hs_grad_year',
          program: 'program_id',
          'consent.text': 'consent.tcpa_text',
          'consent.ip': 'consent.ip',
          reference: 'lead_id',
          campaign: 'offer.id',
          vendor: '=lead-router',
          person: 'lead.personal',
        },
        response_rules: {
          accepted: { path: 'status', in: ['ok', 'accepted'] },
          duplicate: [{ path: 'status', in: ['duplicate'] }, { http_status: [409] }],
          rejected: { http_status: [400, 422], path: 'errors.0.code', exists: true },
          buyer_lead_id_path: 'data.id',
          reason_path: 'message',
        },
      });
      const { catalog, issues } = validateCatalog(withDelivery(delivery));
      expect(issues).toEqual([]);
      expect(catalog!.offers[0].delivery).toEqual(delivery);
    });

    it('names the adapter, url and keys the sandbox adapter does not read', () => {
      expect(messages(withDelivery({ adapter: 'soap', url: 'ftp://x.example' }))).toEqual([
        'offers[0].delivery.adapter: must be one of sandbox, json; got "soap"',
        'offers[0].delivery.url: must be an http(s) URL, got the string "ftp://x.example"',
      ]);
      expect(
        messages(
          withDelivery({ adapter: 'sandbox', url: 'http://127.0.0.1:4100/schools/a/leads', field_map: { a: 'lead_id' }, retries: 2 }),
        ),
      ).toEqual([
        'offers[0].delivery.retries: unknown key (allowed: adapter, url, timeout_ms, headers, field_map, response_rules, idempotent, revocation_url)',
        'offers[0].delivery.field_map: only the json adapter reads it (the sandbox school protocol is fixed)',
      ]);
      expect(messages(withDelivery(json({ timeout_ms: '8000' })))).toEqual([
        'offers[0].delivery.timeout_ms: must be an integer, got the string "8000"',
      ]);
    });

    it('reads idempotent on a json delivery, as a boolean only; the sandbox adapter does not take it', () => {
      const { catalog, issues } = validateCatalog(withDelivery(json({ idempotent: true })));
      expect(issues).toEqual([]);
      expect(catalog!.offers[0].delivery).toMatchObject({ adapter: 'json', idempotent: true });
      expect(messages(withDelivery(json({ idempotent: 'yes' })))).toEqual([
        expect.stringMatching(/^offers\[0\]\.delivery\.idempotent: must be a boolean/),
      ]);
      expect(messages(withDelivery({ adapter: 'sandbox', url: 'http://127.0.0.1:4100/schools/a/leads', idempotent: true }))).toEqual([
        'offers[0].delivery.idempotent: only the json adapter reads it (the sandbox school protocol is fixed)',
      ]);
    });

    it('reads revocation_url on a json delivery, an http(s) URL; the sandbox adapter derives its own', () => {
      const { catalog, issues } = validateCatalog(withDelivery(json({ revocation_url: 'https://api.school.example/revocations' })));
      expect(issues).toEqual([]);
      expect(catalog!.offers[0].delivery).toMatchObject({ adapter: 'json', revocation_url: 'https://api.school.example/revocations' });
      expect(messages(withDelivery(json({ revocation_url: 'ftp://x.example' })))).toEqual([
        expect.stringMatching(/^offers\[0\]\.delivery\.revocation_url: must be an http\(s\) URL/),
      ]);
      expect(
        messages(withDelivery({ adapter: 'sandbox', url: 'http://127.0.0.1:4100/schools/a/leads', revocation_url: 'http://x.example/r' })),
      ).toEqual(['offers[0].delivery.revocation_url: only the json adapter reads it (the sandbox school protocol is fixed)']);
    });

    it('checks headers: names, values, environment references, headers the adapter sets', () => {
      const headers = {
        'Bad Name': 'x',
        'Idempotency-Key': 'mine',
        'Content-Type': 'text/plain',
        'X-Key': 'a\r\nInjected: 1',
        'X-Token': 'Bearer ${NORTHFIELD_TOKEN}',
        'X-Env': '${env:lower_ok}-${env:ALSO_OK}',
        'x-env': 'twice',
        'X-Num': 5,
      };
      expect(messages(withDelivery(json({ headers })))).toEqual(['offers[0].delivery.headers.X-Num: must be a string, got number 5']);
      delete (headers as Record<string, unknown>)['X-Num'];
      expect(messages(withDelivery(json({ headers })))).toEqual([
        `offers[0].delivery.headers["Bad Name"]: must be an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-)`,
        'offers[0].delivery.headers.Idempotency-Key: is set by the adapter and cannot be configured',
        'offers[0].delivery.headers.Content-Type: is set by the adapter and cannot be configured',
        'offers[0].delivery.headers.X-Key: must be printable ASCII (no line breaks or control characters)',
        'offers[0].delivery.headers.X-Token: has a "${" that is not an environment reference ${env:NAME} (NAME: letters, digits and _)',
        'offers[0].delivery.headers.x-env: repeats header X-Env (header names are case-insensitive)',
      ]);
      expect(messages(withDelivery(json({ headers: { Authorization: 'Bearer abc123', 'X-Api-Key': '${env:NORTHFIELD_KEY}' } })))).toEqual([
        'offers[0].delivery.headers.Authorization: carries a credential and must be an environment reference ${env:NAME} (optionally after a scheme: Bearer ${env:NAME}), never a literal value: put the value in the environment of the app that calls',
      ]);
      expect(messages(withDelivery(json({ headers: { Authorization: 'Bearer ${env:NORTHFIELD_TOKEN}' } })))).toEqual([]);
      expect(messages(withDelivery(json({ headers: ['Authorization'] })))).toEqual([
        'offers[0].delivery.headers: must be an object, got an array',
      ]);
    });

    it("checks field_map sources against the lead document and the offer's questions", () => {
      const field_map = {
        a: 'lead.personal.email',
        b: 'lead.personal.favourite_colour',
        c: 'lead.contact.email',
        d: 'lead_id.value',
        e: 'answers.hs_grad_year',
        f: 'answers.shoe_size',
        g: 'tracking.subid.x',
        h: 'consent.tcpa_consent',
        i: 'email',
        j: '',
        k: 7,
        l: '=',
        m: 'tracking.my custom key',
      };
      expect(messages(withDelivery(json({ field_map })))).toEqual([
        'offers[0].delivery.field_map.b: invalid source "lead.personal.favourite_colour": lead.personal has no field "favourite_colour" (fields: first_name, last_name, email, phone, date_of_birth) (a literal is written =text)',
        'offers[0].delivery.field_map.c: invalid source "lead.contact.email": lead has no field "contact" (fields: personal, address, education, background) (a literal is written =text)',
        'offers[0].delivery.field_map.d: invalid source "lead_id.value": lead_id is a value and has no fields (a literal is written =text)',
        'offers[0].delivery.field_map.f: invalid source "answers.shoe_size": "shoe_size" is not among this offer\'s form_fields (hs_grad_year, rn_license) (a literal is written =text)',
        'offers[0].delivery.field_map.g: invalid source "tracking.subid.x": tracking.subid is a value and has no fields (a literal is written =text)',
        'offers[0].delivery.field_map.i: invalid source "email": the lead document has no field "email" (fields: lead_id, offer, lead, tracking, consumer_ip, program_id, answers, consent, submitted_at) (a literal is written =text)',
        'offers[0].delivery.field_map.j: must not be empty',
        'offers[0].delivery.field_map.k: must be a string, got number 7',
        'offers[0].delivery.field_map.m: invalid source "tracking.my custom key": "my custom key" is not a key of tracking (a literal is written =text)',
      ]);
    });

    it('checks field_map targets: dotted paths, no clashes, no prototype keys', () => {
      const field_map = {
        'contact.email': 'lead.personal.email',
        contact: 'lead_id',
        'a..b': 'lead_id',
        'x.__proto__.y': 'lead_id',
        [`${'a.'.repeat(10)}z`]: 'lead_id',
      };
      expect(messages(withDelivery(json({ field_map })))).toEqual([
        'offers[0].delivery.field_map.contact: conflicts with target "contact.email": one value cannot also hold fields',
        'offers[0].delivery.field_map["a..b"]: must be a dotted path of non-empty parts of at most 100 characters, got "a..b"',
        'offers[0].delivery.field_map["x.__proto__.y"]: must not use __proto__ as a key',
        'offers[0].delivery.field_map["a.a.a.a.a.a.a.a.a.a.z"]: must be a dotted path of at most 10 parts',
      ]);
      expect(messages(withDelivery(json({ field_map: {} })))).toEqual([
        'offers[0].delivery.field_map: must not be empty (leave field_map out to send the default lead document)',
      ]);
      expect(messages(withDelivery(json({ field_map: 'lead' })))).toEqual([
        "offers[0].delivery.field_map: must be an object of target path (in the school's body) to source",
      ]);
    });

    it('checks response_rules: keys, matches, statuses, values', () => {
      const rules = (response_rules: unknown) => messages(withDelivery(json({ response_rules })));
      expect(rules({ duplicate: { http_status: [409] }, otherwise: 'rejected' })).toEqual([
        'offers[0].delivery.response_rules.otherwise: unknown key (allowed: accepted, duplicate, rejected, buyer_lead_id_path, reason_path)',
        'offers[0].delivery.response_rules.accepted: is required',
      ]);
      expect(
        rules({
          accepted: [{ path: 'status' }, { http_status: [201, 503] }, {}, { in: ['ok'] }],
          duplicate: { path: 'status', in: [], exists: true },
          rejected: [],
          reason_path: 'errors..message',
        }),
      ).toEqual([
        'offers[0].delivery.response_rules.accepted[0]: a path needs exactly one of in or exists',
        'offers[0].delivery.response_rules.accepted[1].http_status[1]: must be between 200 and 499, got 503',
        'offers[0].delivery.response_rules.accepted[2]: must name http_status, path or both',
        'offers[0].delivery.response_rules.accepted[3]: must name http_status, path or both',
        'offers[0].delivery.response_rules.accepted[3]: in and exists need a path',
        'offers[0].delivery.response_rules.duplicate: a path needs exactly one of in or exists',
        'offers[0].delivery.response_rules.duplicate.in: must not be empty',
        'offers[0].delivery.response_rules.rejected: must not be empty',
        'offers[0].delivery.response_rules.reason_path: must be a dotted path of non-empty parts of at most 100 characters, got "errors..message"',
      ]);
      expect(rules({ accepted: { path: 'ok', in: [true, 1, null, 'yes', { a: 1 }] }, buyer_lead_id_path: 42 })).toEqual([
        'offers[0].delivery.response_rules.accepted.in[4]: must be a string (at most 200 characters), a number, a boolean or null',
        'offers[0].delivery.response_rules.buyer_lead_id_path: must be a string, got number 42',
      ]);
      expect(rules({ accepted: { http_status: 200 } })).toEqual([
        'offers[0].delivery.response_rules.accepted.http_status: must be an array, got number 200',
      ]);
    });
  });
});
