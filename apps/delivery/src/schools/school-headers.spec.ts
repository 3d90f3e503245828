import { SchoolConfigError } from './school-errors';
import { schoolHeaders } from './school-headers';
import { sampleDelivery } from '../../../../test/support/school-delivery';

describe('schoolHeaders', () => {
  const withHeaders = (headers: Record<string, string>) =>
    sampleDelivery({ adapter: 'json', url: 'https://api.school.example/leads', headers });

  it('fills in environment references and adds the Idempotency-Key', () => {
    const d = withHeaders({ Authorization: 'Bearer ${env:NF_TOKEN}', 'X-Pair': '${env:A}:${env:B}', 'X-Vendor': 'lead-router' });
    expect(schoolHeaders(d, { NF_TOKEN: 's3cret', A: 'a', B: 'b' })).toEqual({
      authorization: 'Bearer s3cret',
      'x-pair': 'a:b',
      'x-vendor': 'lead-router',
      'idempotency-key': d.leadId,
    });
  });

  it('always sends the lead id as the Idempotency-Key, whatever the settings say', () => {
    const d = withHeaders({ 'IDEMPOTENCY-KEY': 'mine' });
    expect(schoolHeaders(d, {})).toEqual({ 'idempotency-key': d.leadId });
    expect(schoolHeaders(sampleDelivery({ adapter: 'sandbox', url: 'http://127.0.0.1:4100/schools/a/leads' }), {})).toEqual({
      'idempotency-key': d.leadId,
    });
  });

  it.each([
    ['unset', {}],
    ['empty', { NF_TOKEN: '' }],
  ])('refuses a reference to an %s variable with a detail naming header and variable', (_, env) => {
    const error = (() => {
      try {
        schoolHeaders(withHeaders({ Authorization: 'Bearer ${env:NF_TOKEN}' }), env);
      } catch (e) {
        return e as SchoolConfigError;
      }
    })();
    expect(error).toBeInstanceOf(SchoolConfigError);
    expect(error).toMatchObject({ code: 'SCHOOL_CONFIG_ERROR', status: null, notReceived: true });
    expect(error?.detail).toBe('delivery settings: header Authorization: environment variable NF_TOKEN is not set');
  });

  it('refuses a variable whose value a header cannot carry, without quoting it', () => {
    const run = () => schoolHeaders(withHeaders({ 'X-Key': '${env:KEY}' }), { KEY: 'abc\r\nX-Injected: 1' });
    expect(run).toThrow(SchoolConfigError);
    expect(run).toThrow(/^delivery settings: header X-Key: the value is not printable ASCII/);
    expect(run).not.toThrow(/abc/);
  });
});
