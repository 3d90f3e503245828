import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RATE_LIMITS, EndpointName } from '@lr/contracts';

/*
 * The affiliate API's OpenAPI document as committed (packages/client/openapi.json,
 * exported from the gateway's decorators; test/e2e/openapi.e2e-spec.ts checks it
 * is the document the gateway serves), read as it is: its version, its server,
 * each operation's rate-limit header. Redocly, Spectral and the client generator
 * run on it in test/tools/openapi-document.tool-spec.ts.
 */

const ROOT = join(__dirname, '..', '..');
const DOCUMENT = 'packages/client/openapi.json';

describe('the OpenAPI document and its client', () => {
  it('is an OpenAPI 3.0 document with a server', () => {
    const doc = JSON.parse(readFileSync(join(ROOT, DOCUMENT), 'utf8'));
    expect(doc.openapi).toMatch(/^3\.0\./);
    expect(doc.servers).toEqual([{ url: expect.stringMatching(/^https?:\/\/[^/]+$/), description: expect.any(String) }]);
  });

  it("shows each operation's own default budget in its X-RateLimit-Limit header, as the gateway sends it", () => {
    const doc = JSON.parse(readFileSync(join(ROOT, DOCUMENT), 'utf8'));
    // The budget each path spends (the lead-status read counts toward the leads endpoint's).
    const budget: Record<string, EndpointName> = {
      '/api/v1/engine/search': 'search',
      '/api/v1/engine/results/{svc_lead_id}': 'results',
      '/api/v1/engine/leads': 'leads',
      '/api/v1/engine/leads/{svc_lead_id}': 'leads',
      '/api/v1/engine/dupe-check': 'dupe-check',
      '/api/v1/engine/opt-outs': 'opt-outs',
      '/api/v1/buyer/returns': 'returns',
    };
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(budget).sort());
    for (const [path, ops] of Object.entries<
      Record<string, { responses: Record<string, { headers?: Record<string, { description: string }> }> }>
    >(doc.paths)) {
      const { perMinute, burst } = DEFAULT_RATE_LIMITS[budget[path]];
      for (const [method, op] of Object.entries(ops)) {
        for (const status of ['200', '202'].filter((s) => op.responses[s])) {
          expect({ path, method, status, header: op.responses[status].headers?.['X-RateLimit-Limit']?.description }).toEqual({
            path,
            method,
            status,
            header: expect.stringContaining(`\`${perMinute}/min; burst=${burst}\``),
          });
        }
      }
    }
  });
});
