import { InvalidParam } from './invalid-param';
import { PARTNER_PARAMS, SCHOOL_PARAMS, outcomeOverride, parseListLimit, parseSandboxParams } from './sandbox-params';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof InvalidParam ? { param: e.param, in: e.location } : e;
  }
  throw new Error('not refused');
};

describe('sandbox params', () => {
  it('default to an immediate accept of every offer', () => {
    expect(parseSandboxParams('', PARTNER_PARAMS)).toEqual({
      outcome: 'accept',
      delayMs: 0,
      match: 'all',
      revocation: 'acknowledge',
      markup: 'none',
    });
  });

  it('read a partner base_url query', () => {
    expect(parseSandboxParams('delay_ms=3000&match=some&outcome=reject&reason=Not%20a%20fit', PARTNER_PARAMS)).toEqual({
      outcome: 'reject',
      delayMs: 3000,
      match: 'some',
      reason: 'Not a fit',
      revocation: 'acknowledge',
      markup: 'none',
    });
  });

  it('read which display string of a partner result carries markup, for partners only', () => {
    expect(parseSandboxParams('markup=tcpa_text', PARTNER_PARAMS).markup).toBe('tcpa_text');
    expect(refusal(() => parseSandboxParams('markup=script', PARTNER_PARAMS))).toEqual({ param: 'markup', in: 'query' });
    expect(refusal(() => parseSandboxParams('markup=tcpa_text', SCHOOL_PARAMS))).toEqual({ param: 'markup', in: 'query' });
  });

  it('read how revocation notices are answered, for schools and partners', () => {
    expect(parseSandboxParams('outcome=accept&revocation=ignore', SCHOOL_PARAMS).revocation).toBe('ignore');
    expect(parseSandboxParams('revocation=acknowledge', PARTNER_PARAMS).revocation).toBe('acknowledge');
    expect(refusal(() => parseSandboxParams('revocation=later', SCHOOL_PARAMS))).toEqual({ param: 'revocation', in: 'query' });
  });

  it('refuse unknown, repeated and malformed parameters by name', () => {
    expect(refusal(() => parseSandboxParams('match=all', SCHOOL_PARAMS))).toEqual({ param: 'match', in: 'query' });
    expect(refusal(() => parseSandboxParams('delay_ms=1&delay_ms=2', SCHOOL_PARAMS))).toEqual({ param: 'delay_ms', in: 'query' });
    expect(refusal(() => parseSandboxParams('delay_ms=300001', SCHOOL_PARAMS))).toEqual({ param: 'delay_ms', in: 'query' });
    expect(refusal(() => outcomeOverride('nope'))).toEqual({ param: 'X-Sandbox-Outcome', in: 'header' });
    expect(refusal(() => parseListLimit('limit=x', 10))).toEqual({ param: 'limit', in: 'query' });
  });

  it('take X-Sandbox-Outcome when sent', () => {
    expect(outcomeOverride(undefined)).toBeUndefined();
    expect(outcomeOverride(' timeout ')).toBe('timeout');
  });
});
