import { schoolLeadDocument } from '@lr/domain';
import { SandboxSchoolAdapter } from './sandbox-school.adapter';
import { SchoolHttpError, SchoolProtocolError } from './school-errors';
import { httpStub, sampleDelivery } from '../../../../test/support/school-delivery';

describe('SandboxSchoolAdapter', () => {
  const adapter = new SandboxSchoolAdapter({ SANDBOX_TOKEN: 't0k' });
  const d = sampleDelivery({
    adapter: 'sandbox',
    url: 'http://127.0.0.1:4100/schools/northfield/leads?outcome=accept&delay_ms=50',
    headers: { 'X-Token': '${env:SANDBOX_TOKEN}' },
  });
  const http = httpStub();
  beforeEach(http.install);
  afterEach(http.restore);
  const answer = (body: string, status = 200) => http.json(body, status);
  const deliver = () => adapter.deliver(d, new AbortController().signal);

  it('POSTs the lead document with the settings headers and the Idempotency-Key, and reads accepted', async () => {
    answer('{"result":"accepted","id":"northfield-0123456789ab"}');
    await expect(deliver()).resolves.toEqual({ kind: 'accepted', buyerLeadId: 'northfield-0123456789ab' });
    const sent = http.sent();
    expect(sent.url).toBe(d.settings.url);
    expect(sent.body).toEqual(schoolLeadDocument(d));
    expect(sent.headers).toMatchObject({ 'x-token': 't0k', 'idempotency-key': d.leadId });
  });

  it.each<[string, unknown]>([
    ['{"result":"rejected","reason":"Program full"}', { kind: 'rejected', buyerReason: 'Program full' }],
    ['{"result":"duplicate","reason":"Lead already exists"}', { kind: 'duplicate', buyerReason: 'Lead already exists' }],
  ])('reads %s', async (body, outcome) => {
    answer(body);
    await expect(deliver()).resolves.toEqual(outcome);
  });

  it('throws SchoolHttpError on HTTP 500 and on a 400 (a bad sandbox parameter), SchoolProtocolError on an answer outside the protocol', async () => {
    answer('{"error":"Internal Server Error"}', 500);
    await expect(deliver()).rejects.toEqual(new SchoolHttpError(500, ''));
    answer('{"error":"INVALID_PARAM","param":"delay_ms","in":"query"}', 400);
    await expect(deliver()).rejects.toMatchObject({ status: 400, detail: 'HTTP 400: INVALID_PARAM delay_ms' });
    answer('{"status":"ok"}');
    await expect(deliver()).rejects.toBeInstanceOf(SchoolProtocolError);
  });
});
