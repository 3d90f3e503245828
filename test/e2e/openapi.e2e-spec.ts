import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { REFUSAL, SUBMIT } from '../../libs/domain/src';
import { OptOutRequestDto } from '../../apps/gateway/src/opt-outs/opt-out-request.dto';
import { DupeCheckRequestDto } from '../../apps/gateway/src/pre-check/dupe-check-request.dto';
import { LeadsRequestDto } from '../../apps/gateway/src/submit-lead/leads-request.dto';
import { SearchRequestDto } from '../../apps/gateway/src/start-search/search-request.dto';
import { ReturnRequestDto } from '../../apps/gateway/src/return-lead/return-request.dto';
import { call } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { testEnv, uniqueSuffix } from '../support/test-env';

/*
 * The OpenAPI document the running gateway serves, checked against the
 * affiliate contract (../shared/spec/affiliate-api.md). The contract is not
 * read at run time (a clean clone has no ../shared): its endpoints, statuses
 * and fields are written out below, from its Endpoints, Errors, Result entry,
 * Submit answer and Authentication sections. Sets are compared exactly, so a
 * missing (or an unexpected) endpoint or status fails.
 */

type Method = 'get' | 'post';
interface ContractEndpoint {
  method: Method;
  path: string;
  /** Success statuses, then every error status the contract lists for the endpoint. */
  success: number[];
  errors: number[];
  /** The success answer's schema, and (POST) the request schema with the DTO that validates it. */
  answer: string;
  request?: { dto: new () => object; required: string[] };
}

const CONTRACT: ContractEndpoint[] = [
  {
    method: 'post',
    path: '/api/v1/engine/search',
    success: [200],
    errors: [400, 401, 403, 429, 500, 503],
    answer: 'SearchAnswer',
    request: { dto: SearchRequestDto, required: ['svc_campaign_id', 'svc_affiliate_id', 'lead', 'tracking'] },
  },
  {
    method: 'get',
    path: '/api/v1/engine/results/{svc_lead_id}',
    success: [200],
    errors: [401, 403, 404, 429, 500, 503],
    answer: 'SearchAnswer',
  },
  {
    method: 'post',
    path: '/api/v1/engine/leads',
    success: [200, 202],
    errors: [400, 401, 403, 404, 409, 429, 500, 503],
    answer: 'SubmitAnswer',
    // Both modes need these two; the rest depends on the mode.
    request: { dto: LeadsRequestDto, required: ['svc_campaign_id', 'svc_affiliate_id'] },
  },
  {
    method: 'post',
    path: '/api/v1/engine/dupe-check',
    success: [200],
    errors: [400, 401, 403, 404, 405, 413, 429, 503],
    answer: 'DupeCheckAnswer',
    request: { dto: DupeCheckRequestDto, required: [] },
  },
  // Not in the contract (docs/submit.md): the decision of a submit, answered like a poll, and its return (docs/returns.md).
  {
    method: 'get',
    path: '/api/v1/engine/leads/{svc_lead_id}',
    success: [200],
    errors: [401, 403, 404, 429, 500, 503],
    answer: 'LeadStatusAnswer',
  },
  // The buyer API (docs/returns.md): a school returns a lead it bought, in the contract's envelope and error style.
  {
    method: 'post',
    path: '/api/v1/buyer/returns',
    success: [200],
    errors: [400, 401, 403, 404, 409, 413, 429, 500, 503],
    answer: 'ReturnAnswer',
    request: { dto: ReturnRequestDto, required: ['svc_lead_id', 'reason'] },
  },
  // Not in the contract (docs/opt-outs.md): a consumer's request to stop, recorded for every affiliate.
  {
    method: 'post',
    path: '/api/v1/engine/opt-outs',
    success: [200],
    errors: [400, 401, 403, 405, 413, 429, 503],
    answer: 'OptOutAnswer',
    request: { dto: OptOutRequestDto, required: [] },
  },
];

/** Fields of the contract's answer tables. */
const ANSWER_FIELDS: Record<string, string[]> = {
  SearchAnswer: [
    'code',
    'status',
    'reason',
    'success',
    'svc_lead_id',
    'processing_done',
    'poll_after_ms',
    'accepted_count',
    'max_accepted_submissions',
    'true_exclusive_accepted',
    'offers',
  ],
  ResultEntry: ['svc_result_id', 'campaign_id', 'offer', 'school', 'programs', 'payout', 'form_fields', 'expires_at'],
  ResultOffer: ['id', 'name', 'offer_type', 'is_exclusive', 'tcpa_text'],
  ResultSchool: ['name', 'logo_url'],
  ResultProgram: ['value', 'label', 'payout'],
  FormField: ['name', 'label', 'type', 'required', 'required_when', 'options'],
  FormFieldOption: ['value', 'label'],
  SubmitAnswer: [
    'code',
    'status',
    'reason',
    'source',
    'success',
    'accepted',
    'retryable',
    'svc_lead_id',
    'payout',
    'message',
    'disposition',
  ],
  LeadStatusAnswer: [
    'code',
    'status',
    'reason',
    'success',
    'accepted',
    'retryable',
    'svc_lead_id',
    'payout',
    'message',
    'disposition',
    'returned',
  ],
  ReturnAnswer: ['code', 'status', 'reason', 'success', 'retryable', 'svc_lead_id', 'returned'],
  LeadReturn: ['at', 'reason'],
  DupeCheckAnswer: ['code', 'status', 'reason', 'success', 'retryable', 'duplicate_likely'],
  OptOutAnswer: ['code', 'status', 'reason', 'success', 'retryable', 'opt_out_id'],
  ErrorEnvelope: ['code', 'status', 'reason', 'retryable', 'retry_after_seconds', 'error'],
  DupeCheckNotAvailable: ['error'],
};

/** The Result entry's "Required: yes" rows. */
const ANSWER_REQUIRED: Record<string, string[]> = {
  ResultEntry: ['svc_result_id', 'offer', 'programs', 'form_fields'],
  ResultProgram: ['value', 'label'],
  FormField: ['name', 'type', 'required'],
};

const LEAD_GROUPS: Record<string, string[]> = {
  personal: ['first_name', 'last_name', 'email', 'phone', 'date_of_birth'],
  address: ['address_line_1', 'city', 'state', 'zip_code'],
  education: ['education_level', 'high_school_graduation_year', 'start_timeline', 'learning_preference'],
  background: ['military_affiliation', 'us_citizen'],
};
const TRACKING_FIELDS = [
  'ip_address',
  'subid',
  'subid2',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'wbraid',
  'fbclid',
  'msclkid',
  'ttclid',
  'click_id',
];
const DUPE_CHECK_FIELDS = ['offer_id', 'email', 'phone', 'first_name', 'last_name', 'zip', 'address', 'dob', 'hashed'];
const HASHED_FIELDS = ['email', 'phone', 'last_name', 'zip', 'dob', 'birth_year', 'grad_year', 'ip'];

/** The two modes of the leads endpoint: what each must carry (contract: POST /api/v1/engine/leads). */
const LEADS_MODES: Record<string, string[]> = {
  ResultSubmitMode: ['svc_result_id', 'search_lead_id'],
  DirectPostMode: ['svc_offer_id', 'lead', 'tracking'],
};

/** The codes of a success answer, and of an error answer, as the decision catalog builds them. */
const catalogCodes = (group: Record<string, unknown>) =>
  new Set(
    Object.values(group).map(
      (d) =>
        (typeof d === 'function'
          ? (d as (...a: string[]) => { code: string })(...Array<string>(d.length).fill('1'))
          : (d as { code: string })
        ).code,
    ),
  );
const SUBMIT_CODES = catalogCodes(SUBMIT);
const ERROR_CODES = catalogCodes(REFUSAL);

/** Words of field names an affiliate must never see: what an offer costs, how it was ranked, which key matched. */
const INTERNAL_NAMES = /(^|_)(price|cost|margin|bid|revenue|commission|score|rank|weight|matched|internal|secret|key_id)(_|$)/i;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the OpenAPI document is walked by any path the checks name; its shape is what they check.
type Json = any;

describe('OpenAPI document of the affiliate API (e2e)', () => {
  const env = testEnv(uniqueSuffix());
  let gateway: RunningApp;
  let doc: Json;

  beforeAll(async () => {
    gateway = await startApp('gateway', env);
    const res = await call(gateway.url, 'GET', '/docs-json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
  });

  const schema = (name: string): Json => {
    const found = doc.components?.schemas?.[name];
    if (!found) throw new Error(`no schema ${name} in the document`);
    return found;
  };
  /** A schema, following a $ref or a one-element allOf of a $ref. */
  const resolve = (s: Json): Json => {
    const ref: string | undefined = s?.$ref ?? (s?.allOf?.length === 1 ? s.allOf[0].$ref : undefined);
    return ref ? schema(ref.replace('#/components/schemas/', '')) : s;
  };
  const refName = (s: Json): string | undefined => (s?.$ref ?? s?.allOf?.[0]?.$ref)?.replace('#/components/schemas/', '');
  const operation = (e: ContractEndpoint): Json => doc.paths?.[e.path]?.[e.method];

  it('is an OpenAPI 3 document served without an API key, as JSON', async () => {
    const res = await call(gateway.url, 'GET', '/docs-json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toEqual(expect.any(String));
  });

  it('lists every endpoint of the contract with its method, and nothing else (no health, no metrics)', () => {
    const listed = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(listed.sort()).toEqual(CONTRACT.map((e) => `${e.method.toUpperCase()} ${e.path}`).sort());
  });

  describe.each(CONTRACT.map((e) => [`${e.method.toUpperCase()} ${e.path}`, e] as const))('%s', (_name, endpoint) => {
    it('answers exactly the contract’s statuses, plus a default for the front door’s others', () => {
      const responses = operation(endpoint).responses as Record<string, Json>;
      const numbered = Object.keys(responses)
        .filter((s) => s !== 'default')
        .map(Number);
      expect(numbered.sort()).toEqual([...endpoint.success, ...endpoint.errors].sort());
      expect(responses.default).toBeDefined();
    });

    it('describes its answer bodies: the success schema, and the error envelope on every error', () => {
      const responses = operation(endpoint).responses as Record<string, Json>;
      for (const status of endpoint.success) {
        expect([status, refName(responses[status].content['application/json'].schema)]).toEqual([status, endpoint.answer]);
      }
      for (const status of [...endpoint.errors, 'default']) {
        const plain = endpoint.path.endsWith('/dupe-check') && status === 404; // the contract's one plain body
        expect([status, refName(responses[status].content['application/json'].schema)]).toEqual([
          status,
          plain ? 'DupeCheckNotAvailable' : 'ErrorEnvelope',
        ]);
      }
      for (const status of endpoint.errors.filter((s) => s === 429 || s === 503)) {
        expect(responses[status].headers?.['Retry-After']).toBeDefined();
      }
    });

    it('requires the API key, by either header of the contract', () => {
      const security = (operation(endpoint).security ?? doc.security) as Array<Record<string, string[]>>;
      const schemes = doc.components.securitySchemes as Record<string, Json>;
      const alternatives = security.map((requirement) => Object.keys(requirement).map((name) => schemes[name]));
      expect(alternatives).toEqual(
        expect.arrayContaining([
          [expect.objectContaining({ type: 'http', scheme: 'bearer' })],
          [expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' })],
        ]),
      );
    });

    if (endpoint.request) {
      const { dto, required } = endpoint.request;
      it(`takes the request body its DTO (${dto.name}) validates: the DTO's required fields are the contract's`, () => {
        const body = operation(endpoint).requestBody;
        expect(body.required).toBe(true);
        const requestSchema = resolve(body.content['application/json'].schema);
        const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
        const validated = new Set(rules.map((r) => r.propertyName));
        const mustBeSent = new Set(rules.filter((r) => r.type === 'isDefined').map((r) => r.propertyName));
        expect([...mustBeSent].sort()).toEqual([...required].sort());
        expect([...(requestSchema.required ?? [])].sort()).toEqual([...mustBeSent].sort());
        expect(Object.keys(requestSchema.properties)).toEqual(expect.arrayContaining([...validated]));
      });
    }
  });

  it('describes every field of the contract’s answers', () => {
    for (const [name, fields] of Object.entries(ANSWER_FIELDS)) {
      expect([name, Object.keys(schema(name).properties)]).toEqual([name, expect.arrayContaining(fields)]);
    }
    for (const [name, fields] of Object.entries(ANSWER_REQUIRED)) {
      expect([name, schema(name).required]).toEqual([name, expect.arrayContaining(fields)]);
    }
    const entry = schema('SearchAnswer').properties.offers;
    expect([entry.type, refName(entry.items)]).toEqual(['array', 'ResultEntry']);
    expect(schema('ResultOffer').properties.offer_type.enum).toEqual(['shared', 'exclusive', 'true_exclusive']);
    expect(schema('ErrorEnvelope').required).toEqual(expect.arrayContaining(['code', 'status', 'reason']));
    expect(schema('ErrorEnvelope').properties.status.enum).toEqual([
      'accepted',
      'saved',
      'pending',
      'held',
      'rejected',
      'invalid',
      'failed',
    ]);
    expect(schema('ErrorEnvelope').properties.code.enum).toEqual(
      expect.arrayContaining([
        'REQUIRED_FIELD_MISSING',
        'INVALID_FIELD',
        'NOT_FOUND',
        'FORBIDDEN',
        'AUTH_REQUIRED',
        'AUTH_INVALID',
        'MALFORMED_REQUEST',
        'RATE_LIMITED',
        'INTERNAL_ERROR',
        'UNAVAILABLE',
      ]),
    );
    expect(schema('SubmitAnswer').properties.code.enum).toEqual(
      expect.arrayContaining([
        'ACCEPTED',
        'DUPLICATE',
        'NOT_ELIGIBLE',
        'CAP_REACHED',
        'BUYER_REJECTED',
        'PENDING',
        'TEST_LEAD_HELD',
        'OFFER_UNAVAILABLE',
        'REQUIRED_FIELD_MISSING',
      ]),
    );
  });

  it('describes the request parts the contract names: the lead groups, tracking with its IP, the pre-check keys', () => {
    const search = resolve(operation(CONTRACT[0]).requestBody.content['application/json'].schema);
    const lead = resolve(search.properties.lead);
    for (const [group, fields] of Object.entries(LEAD_GROUPS)) {
      expect([group, Object.keys(lead.properties[group].properties)]).toEqual([group, fields]);
    }
    expect(Object.keys(lead.properties)).toEqual(expect.arrayContaining(['email', 'phone', 'zip']));
    const tracking = resolve(search.properties.tracking);
    expect(Object.keys(tracking.properties)).toEqual(expect.arrayContaining(TRACKING_FIELDS));
    expect(tracking.required).toEqual(['ip_address']);

    const dupe = resolve(operation(CONTRACT[3]).requestBody.content['application/json'].schema);
    expect(Object.keys(dupe.properties)).toEqual(expect.arrayContaining(DUPE_CHECK_FIELDS));
    expect(Object.keys(resolve(dupe.properties.hashed).properties).sort()).toEqual([...HASHED_FIELDS].sort());
  });

  it('is the committed document the client is generated from (packages/client/openapi.json: npm run openapi:export)', () => {
    const committed = JSON.parse(readFileSync(join(__dirname, '..', '..', 'packages', 'client', 'openapi.json'), 'utf8'));
    expect(doc).toEqual(committed);
  });

  it('names a server, so a generated client has a base URL', () => {
    expect(doc.servers).toEqual([{ url: expect.stringMatching(/^https?:\/\/[^/{}]+$/), description: expect.any(String) }]);
  });

  it('models the two submit modes as oneOf, each with the fields it must carry, and answers as extra keys', () => {
    const leads = resolve(operation(CONTRACT[2]).requestBody.content['application/json'].schema);
    expect(leads.oneOf.map(refName).sort()).toEqual(Object.keys(LEADS_MODES).sort());
    for (const [mode, required] of Object.entries(LEADS_MODES)) {
      expect([mode, schema(mode).required]).toEqual([mode, required]);
      for (const field of required) expect([mode, field, !!leads.properties[field]]).toEqual([mode, field, true]);
    }
    // A direct post has no svc_result_id: a request with one is a result submit, so no request is both.
    expect(schema('DirectPostMode').not.required).toEqual(['svc_result_id']);
    expect(leads.additionalProperties.anyOf.map((s: Json) => s.type).sort()).toEqual(['boolean', 'number', 'string']);
    // The contract: "Request (JSON object; extra properties allowed)" for search; disposition "Additional properties allowed".
    expect(resolve(operation(CONTRACT[0]).requestBody.content['application/json'].schema).additionalProperties).toBe(true);
    expect(schema('SubmitDisposition').additionalProperties).toBe(true);
  });

  it('gives each kind of answer only its own codes: search OK, submit decisions, errors in the envelope', () => {
    expect(schema('SearchAnswer').properties.code.enum).toEqual(['OK']);
    expect(new Set(schema('SubmitAnswer').properties.code.enum)).toEqual(SUBMIT_CODES);
    expect(new Set(schema('ErrorEnvelope').properties.code.enum)).toEqual(ERROR_CODES);
    expect(schema('SubmitAnswer').properties.code.enum).not.toContain('OK');
    expect(schema('SubmitAnswer').properties.code.enum).not.toContain('RATE_LIMITED');
    // Builders (a refusal naming its field or reason) are called with placeholders: their `error` does not depend on them.
    const refusals = Object.values(REFUSAL).map((d) =>
      typeof d === 'function' ? (d as (...a: string[]) => (typeof REFUSAL)['unavailable'])(...Array<string>(d.length).fill('x')) : d,
    );
    const details = refusals.flatMap((d) => ('error' in d && d.error !== undefined ? [d.error] : []));
    expect(schema('ErrorEnvelope').properties.error.enum.sort()).toEqual([...new Set(details)].sort());
    // A PENDING submit travels as 202: that answer is narrowed to it.
    const pending = operation(CONTRACT[2]).responses['202'].content['application/json'].schema.allOf[1];
    expect([pending.properties.code.enum, pending.properties.status.enum]).toEqual([['PENDING'], ['pending']]);
  });

  it('lists for each error status the codes it carries, each one a code of the envelope; 429 and 503 say retryable with a delay', () => {
    for (const endpoint of CONTRACT) {
      for (const status of endpoint.errors) {
        const s = operation(endpoint).responses[status].content['application/json'].schema;
        if (!s.allOf) continue; // the pre-check's plain 404
        const narrowed = s.allOf[1];
        const where = `${endpoint.method} ${endpoint.path} ${status}`;
        expect([where, narrowed.properties.code.enum.every((c: string) => ERROR_CODES.has(c))]).toEqual([where, true]);
        if (status === 429 || status === 503) {
          expect([where, narrowed.properties.retryable.enum, narrowed.required]).toEqual([
            where,
            [true],
            expect.arrayContaining(['retry_after_seconds']),
          ]);
        }
      }
    }
    const search400 = operation(CONTRACT[0]).responses['400'].content['application/json'].schema.allOf[1].properties.code.enum;
    expect(search400).toEqual(expect.arrayContaining(['REQUIRED_FIELD_MISSING', 'INVALID_FIELD', 'NOT_FOUND']));
  });

  it('marks every key the gateway sends as null as nullable, null among the values of an enum', () => {
    const decidedBy = schema('SubmitDisposition').properties.decided_by;
    expect([decidedBy.nullable, decidedBy.enum]).toEqual([true, ['service', 'buyer', null]]);
    const nullable: Array<[string, string]> = [
      ['SubmitDisposition', 'decided_at'],
      ['SubmitDisposition', 'search_lead_id'],
      ['ResultEntry', 'campaign_id'],
      ['ResultEntry', 'expires_at'],
      ['ResultOffer', 'is_exclusive'],
      ['ResultOffer', 'tcpa_text'],
      ['ResultSchool', 'logo_url'],
      ['FormField', 'label'],
      ['LeadStatusAnswer', 'returned'],
      ['ReturnRequest', 'note'],
    ];
    for (const [name, field] of nullable) expect([name, field, schema(name).properties[field].nullable]).toEqual([name, field, true]);
  });

  it('describes the error answers the gateway really sends: each endpoint’s 401 matches that status’s schema', async () => {
    for (const endpoint of CONTRACT) {
      const path = endpoint.path.replace('{svc_lead_id}', '00000000-0000-4000-8000-000000000000');
      const res = await call(gateway.url, endpoint.method.toUpperCase(), path, endpoint.method === 'post' ? { body: {} } : {});
      const narrowed = operation(endpoint).responses['401'].content['application/json'].schema.allOf[1];
      const base = schema('ErrorEnvelope');
      expect([path, res.status]).toEqual([path, 401]);
      expect(Object.keys(res.body)).toEqual(expect.arrayContaining([...base.required, ...narrowed.required]));
      for (const [field, rule] of Object.entries<Json>(narrowed.properties)) {
        expect([path, field, rule.enum.includes(res.body[field])]).toEqual([path, field, true]);
      }
    }
  });

  it('exposes no internal field: no price, cost, score or matched key anywhere', () => {
    const names: string[] = [];
    const walk = (node: Json): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node === null || typeof node !== 'object') return;
      if (node.properties) names.push(...Object.keys(node.properties));
      Object.values(node).forEach(walk);
    };
    walk(doc);
    expect(names.length).toBeGreaterThan(50);
    expect(names.filter((n) => INTERNAL_NAMES.test(n))).toEqual([]);
  });

  it('leaves every $ref resolvable', () => {
    const refs = new Set<string>();
    const walk = (node: Json): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node === null || typeof node !== 'object') return;
      if (typeof node.$ref === 'string') refs.add(node.$ref);
      Object.values(node).forEach(walk);
    };
    walk(doc);
    for (const ref of refs) expect([ref, ref.startsWith('#/components/schemas/') && !!schema(ref.split('/').pop()!)]).toEqual([ref, true]);
  });

  it('serves Swagger UI at /docs: HTML 200 and every asset it loads, without a key or a rate limit', async () => {
    const page = await call(gateway.url, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('swagger-ui');
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((u) => !/^(https?:|data:|#)/.test(u));
    expect(assets).toEqual(
      expect.arrayContaining([expect.stringContaining('swagger-ui-init.js'), expect.stringContaining('swagger-ui-bundle.js')]),
    );
    for (const asset of assets) {
      const url = new URL(asset, `${gateway.url}/docs`).pathname;
      const res = await call(gateway.url, 'GET', url);
      expect([url, res.status]).toEqual([url, 200]);
    }
    const init = await call(gateway.url, 'GET', '/docs/swagger-ui-init.js');
    expect(init.text).toContain('/api/v1/engine/search');
    // More reads than the tightest burst of the contract (10), and with a key that does not exist: never 401 or 429.
    for (let i = 0; i < 15; i += 1) {
      const res = await call(gateway.url, 'GET', '/docs-json', { key: 'lr_not-a-real-key' });
      expect(res.status).toBe(200);
    }
  });

  it('keeps the front door around the docs: an unknown asset is the envelope’s 404, the API still wants its key', async () => {
    const missing = await call(gateway.url, 'GET', '/docs/no-such-asset.js');
    expect([missing.status, missing.body?.code]).toEqual([404, 'NOT_FOUND']);
    const api = await call(gateway.url, 'GET', '/api/v1/engine/results/00000000-0000-4000-8000-000000000000');
    expect([api.status, api.body.code]).toEqual([401, 'AUTH_REQUIRED']);
  });
});
