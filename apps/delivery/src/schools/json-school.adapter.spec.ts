import { schoolLeadDocument, type JsonDeliverySettings } from '@lr/domain';
import { JsonSchoolAdapter } from './json-school.adapter';
import { SchoolConfigError, SchoolHttpError } from './school-errors';
import { httpStub, sampleDelivery } from '../../../../test/support/school-delivery';

describe('JsonSchoolAdapter', () => {
  const settings: JsonDeliverySettings = {
    adapter: 'json',
    url: 'https://api.northfield.example/v2/leads',
    headers: { Authorization: 'Bearer ${env:NORTHFIELD_TOKEN}' },
    field_map: {
      'applicant.email': 'lead.personal.email',
      'applicant.zip': 'lead.address.zip_code',
      'meta.source': '=lead-router',
      'meta.reference': 'lead_id',
      'meta.sub_id': 'tracking.subid',
      grad_year: 'answers.hs_grad_year',
      'tcpa.text': 'consent.tcpa_text',
    },
    response_rules: {
      accepted: { path: 'status', in: ['ok'] },
      duplicate: { http_status: [409] },
      buyer_lead_id_path: 'lead.id',
      reason_path: 'message',
    },
  };
  const env = { NORTHFIELD_TOKEN: 's3cret' };
  const http = httpStub();
  beforeEach(http.install);
  afterEach(http.restore);
  const answer = (body: string, status = 200) => http.json(body, status);
  const deliver = (s: JsonDeliverySettings = settings, e: Record<string, string> = env) =>
    new JsonSchoolAdapter(e).deliver(sampleDelivery(s), new AbortController().signal);
  const sent = () => http.sent();

  it('sends the mapped body with the secret header filled in from the environment, and reads the rules', async () => {
    answer('{"status":"ok","lead":{"id":981}}');
    await expect(deliver()).resolves.toEqual({ kind: 'accepted', buyerLeadId: '981' });
    const d = sampleDelivery(settings);
    expect(sent().body).toEqual({
      applicant: { email: 'ada@example.com', zip: '90210' },
      meta: { source: 'lead-router', reference: d.leadId, sub_id: 's-42' },
      grad_year: '2015',
      tcpa: { text: d.consent.tcpaText },
    });
    expect(sent().headers).toMatchObject({ authorization: 'Bearer s3cret', 'idempotency-key': d.leadId });
  });

  it('reads duplicate from a 409 and counts a 2xx no rule matches as rejected, keeping the reason for operators', async () => {
    answer('{"message":"We already have this student"}', 409);
    await expect(deliver()).resolves.toEqual({ kind: 'duplicate', buyerReason: 'We already have this student' });
    answer(`{"status":"declined","message":"${'Outside our area. '.repeat(40)}"}`);
    const outcome = await deliver();
    expect(outcome.kind).toBe('rejected');
    expect(outcome.kind === 'rejected' && outcome.buyerReason?.length).toBe(500);
  });

  it('throws SchoolHttpError for a 5xx and for a 4xx no rule reads', async () => {
    answer('{}', 502);
    await expect(deliver()).rejects.toMatchObject({ status: 502, notReceived: false });
    answer('{"error":"UNAUTHORIZED"}', 401);
    await expect(deliver()).rejects.toEqual(new SchoolHttpError(401, 'UNAUTHORIZED'));
  });

  it('fails with a SchoolConfigError, sending nothing, when a header names an unset variable', async () => {
    const error = await deliver(settings, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchoolConfigError);
    expect(error).toMatchObject({
      notReceived: true,
      detail: 'delivery settings: header Authorization: environment variable NORTHFIELD_TOKEN is not set',
    });
    expect(http.calls).toHaveLength(0);
  });

  it('without field_map and response_rules sends the lead document and reads the sandbox protocol', async () => {
    const plain: JsonDeliverySettings = { adapter: 'json', url: 'https://api.northfield.example/v2/leads' };
    answer('{"result":"accepted","id":"nf-1"}');
    await expect(deliver(plain)).resolves.toEqual({ kind: 'accepted', buyerLeadId: 'nf-1' });
    expect(sent().body).toEqual(schoolLeadDocument(sampleDelivery(plain)));
  });

  it.each([
    [{ a: 'lead_id', 'a.b': 'lead_id' }],
    [{ 'a.b': 'lead_id', a: 'lead_id' }],
    [{ '__proto__.polluted': '=yes' }],
    [{ 'a..b': 'lead_id' }],
  ])('refuses field_map targets the catalog check would refuse (%j) as a SchoolConfigError, sending nothing', async (field_map) => {
    const error = await deliver({ ...settings, field_map }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchoolConfigError);
    expect(http.calls).toHaveLength(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
