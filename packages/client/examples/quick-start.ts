import { LeadRouterClient } from '@lead-router/client';

async function main(): Promise<void> {
  const {
    LEAD_ROUTER_URL = 'http://localhost:3000',
    LEAD_ROUTER_API_KEY = '',
    LEAD_ROUTER_CAMPAIGN_ID = '',
    LEAD_ROUTER_AFFILIATE_ID = '',
  } = process.env;
  const api = new LeadRouterClient({ baseUrl: LEAD_ROUTER_URL, apiKey: LEAD_ROUTER_API_KEY });
  const ids = { svc_campaign_id: LEAD_ROUTER_CAMPAIGN_ID, svc_affiliate_id: LEAD_ROUTER_AFFILIATE_ID };

  // 1. Search, then poll (every poll_after_ms) until every offer has answered.
  const found = await api.searchUntilDone({
    ...ids,
    lead: {
      personal: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '5125550100' },
      address: { state: 'TX', zip_code: '75001' },
    },
    tracking: { ip_address: '73.12.44.10' },
  });
  if (!found.ok) throw new Error(`search refused: ${found.status} ${found.body.code} (${found.body.reason})`);
  const best = found.body.offers[0];
  if (!best) return console.log(JSON.stringify({ offers: 0 }));

  // 2. Submit the consumer's choice with their consent. A 429 or a retryable 503 is sent again; a decision never is.
  const answer = await api.submit({
    ...ids,
    svc_result_id: best.svc_result_id,
    search_lead_id: found.body.svc_lead_id,
    program_id: best.programs[0]?.value,
    tcpa_consent: true,
    consent_button_label: 'Request info',
  });
  // 3. Read status and code, not the HTTP status: PENDING (202) is not final, every other decision is.
  const lead = answer.ok ? answer.body.svc_lead_id : null;
  console.log(JSON.stringify({ offers: found.body.offers.length, status: answer.status, code: answer.body.code, svc_lead_id: lead }));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
