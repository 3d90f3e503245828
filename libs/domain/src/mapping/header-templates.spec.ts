import { fillHeaders, isSecretHeaderName, literalSecretProblem } from './header-templates';

describe('credential headers', () => {
  it('are told by their names', () => {
    for (const name of [
      'Authorization',
      'proxy-authorization',
      'Cookie',
      'X-Api-Key',
      'X-Auth-Token',
      'Client-Secret',
      'X-Password',
      'X-Signature',
      'apikey',
    ])
      expect(isSecretHeaderName(name)).toBe(true);
    for (const name of ['X-Tenant', 'Accept', 'X-Source', 'User-Agent']) expect(isSecretHeaderName(name)).toBe(false);
  });

  it('take their value from the environment only: references, and a scheme in front for Authorization', () => {
    for (const [name, value] of [
      ['X-Api-Key', '${env:PARTNER_KEY}'],
      ['X-Signature', '${env:KEY_ID}${env:KEY_SECRET}'],
      ['Authorization', 'Bearer ${env:PARTNER_TOKEN}'],
      ['Authorization', 'Basic ${env:PARTNER_BASIC}'],
      ['X-Tenant', 'literal is fine here'],
    ])
      expect(literalSecretProblem(name, value)).toBeNull();
    for (const [name, value] of [
      ['X-Api-Key', 'sk_live_51H'],
      ['X-Api-Key', 'prefix-${env:PARTNER_KEY}'],
      ['Authorization', 'Bearer sk_live_51H'],
      ['Authorization', 'sk_live ${env:PARTNER_TOKEN}'],
      ['X-Auth-Token', ''],
    ]) {
      const problem = literalSecretProblem(name, value);
      expect(problem).toMatch(/must be an environment reference \$\{env:NAME\}/);
      if (value !== '') expect(problem).not.toContain(value);
    }
  });

  it('are filled in from the environment at call time, never from the catalog', () => {
    expect(fillHeaders({ 'X-Api-Key': '${env:K}', Authorization: 'Bearer ${env:T}' }, { K: 'k-1', T: 't-2' })).toEqual({
      'x-api-key': 'k-1',
      authorization: 'Bearer t-2',
    });
  });
});
