import { errorForLog, logSafeUrl, redactPii, scrubContactData } from './redact';

describe('redaction', () => {
  it('redacts the values of contact keys at any depth', () => {
    const out = redactPii({
      lead: { personal: { email: 'a@b.co', Phone: '5125550100', first_name: 'Ada' }, address: { state: 'TX' } },
      list: [{ last_name: 'L' }],
    });
    expect(out).toEqual({
      lead: { personal: { email: '[redacted]', Phone: '[redacted]', first_name: '[redacted]' }, address: '[redacted]' },
      list: [{ last_name: '[redacted]' }],
    });
  });

  describe('logSafeUrl', () => {
    it('drops the query string and the fragment', () => {
      expect(logSafeUrl('/api/v1/engine/search?email=ada%40example.com&phone=5125550100#x')).toBe('/api/v1/engine/search');
    });

    it('replaces path segments that look like an email or a phone number, and keeps ids', () => {
      expect(logSafeUrl('/api/v1/engine/results/ada%40example.com')).toBe('/api/v1/engine/results/[redacted]');
      expect(logSafeUrl('/api/v1/engine/results/(512)%20555-0100')).toBe('/api/v1/engine/results/[redacted]');
      expect(logSafeUrl('/api/v1/engine/leads/5125550100')).toBe('/api/v1/engine/leads/[redacted]');
      expect(logSafeUrl('/api/v1/engine/results/12345678-1234-4234-9234-123456789012')).toBe(
        '/api/v1/engine/results/12345678-1234-4234-9234-123456789012',
      );
      expect(logSafeUrl('/schools/north-1/leads')).toBe('/schools/north-1/leads');
      expect(logSafeUrl('/bad/%E0%A4%A')).toBe('/bad/%E0%A4%A');
      expect(logSafeUrl(undefined)).toBeUndefined();
    });
  });

  describe('scrubContactData (every serialized line)', () => {
    it.each([
      'ada.lovelace+tag@example.co.uk',
      'ADA@EXAMPLE.COM',
      '5125550100',
      '512-555-0100',
      '512.555.0100',
      '512 555 0100',
      '(512) 555-0100',
      '(512)555-0100',
      '+1 512-555-0100',
      '+15125550100',
      '1-512-555-0100',
    ])('replaces %s inside a message', (value) => {
      const line = JSON.stringify({
        level: 50,
        msg: `invalid input syntax for type uuid: "${value}"`,
        err: { stack: `Error: ${value}\n    at x (y.js:1:2)` },
      });
      const scrubbed = scrubContactData(line);
      expect(scrubbed).not.toContain(value);
      expect(JSON.parse(scrubbed)).toEqual(expect.objectContaining({ level: 50 }));
    });

    it('replaces the value PostgreSQL quotes in an invalid-input error', () => {
      const line = JSON.stringify({ msg: 'failed: QueryFailedError: invalid input syntax for type uuid: "Quillfeather" (retrying)' });
      expect(JSON.parse(scrubContactData(line)).msg).toBe(
        'failed: QueryFailedError: invalid input syntax for type uuid: [value] (retrying)',
      );
    });

    it('leaves ids, times, numbers and addresses alone, and the line valid JSON', () => {
      const line = JSON.stringify({
        time: '2026-11-21T23:57:41.512Z',
        message_id: 'submit:12345678-9012-4345-8678-901234567890',
        buyer_lead_id: 'northfield-512555010012',
        epoch: 1763769461,
        big: 5125550100,
        list: [5125550100],
        latency_ms: 1234,
        ip: '73.12.44.10',
        at: 'y.js:5125:5550100',
        version: 'v1.5125550100',
      });
      expect(scrubContactData(line)).toBe(line);
    });
  });

  it('logs an error by type, message, stack and code only (a query error’s parameters stay out)', () => {
    class QueryFailedError extends Error {
      parameters = ['{"personal":{"last_name":"Quillfeather"}}'];
      query = 'INSERT INTO leads ...';
      code = '22P02';
    }
    const err = new QueryFailedError('invalid input syntax', { cause: new Error('socket hang up') });
    expect(errorForLog(err)).toEqual({
      type: 'QueryFailedError',
      message: 'invalid input syntax',
      stack: err.stack,
      code: '22P02',
      cause: expect.objectContaining({ type: 'Error', message: 'socket hang up' }),
    });
    expect(JSON.stringify(errorForLog(err))).not.toContain('Quillfeather');
    expect(errorForLog('plain text')).toBe('plain text');
  });
});
