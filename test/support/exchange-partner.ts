import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A json partner configured for the sandbox's exchange protocol
 * (docs/sandbox.md, "Exchange protocol"): test/fixtures/exchange-partner.json,
 * the catalog entry of the worked example in docs/runbooks/add-partner.md,
 * under this test's id, name and base_url. `keyVariable` names the
 * environment variable partner-adapter reads the API key from.
 */
export function exchangePartner(
  id: string,
  name: string,
  baseUrl: string,
  keyVariable: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const entry = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'exchange-partner.json'), 'utf8')) as Record<string, unknown>;
  return { ...entry, id, name, base_url: baseUrl, timeout_ms: 5000, headers: { 'X-Api-Key': `\${env:${keyVariable}}` }, ...extra };
}
