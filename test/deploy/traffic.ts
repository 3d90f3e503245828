import { randomUUID } from 'node:crypto';
import { call, HttpAnswer } from '../support/http';
import { person, SubmitClient } from '../support/submit-flow';

/** One consumer's search and submit as the composed system answered them. */
export interface Flow {
  searchId?: string;
  resultId?: string;
  idempotencyKey: string;
  /** The svc_lead_id of the submit's answer (200 or 202), once one came. */
  leadId?: string;
  /** The first answer's HTTP status (`transport`: none came), and how many tries the submit took. */
  firstStatus?: number | 'transport';
  tries: number;
  /** When the submit's first try left and its last answer came (ms since the epoch). */
  submitStart?: number;
  submitEnd?: number;
  /** The decision read back from the lead status once it is no longer pending. */
  finalCode?: string;
  error?: string;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A call that answers `transport` instead of throwing when the connection fails or times out. */
async function tryCall(fn: () => Promise<HttpAnswer>): Promise<HttpAnswer | 'transport'> {
  try {
    return await fn();
  } catch {
    return 'transport';
  }
}

/**
 * A fresh person searches the campaign, then submits the offer's result with
 * an Idempotency-Key. A 503 or no answer is sent again with the same key and
 * body, as an affiliate's client would (the contract's retryable answers),
 * until a decision or PENDING (with its svc_lead_id) comes back.
 */
export async function searchAndSubmit(client: SubmitClient, campaignId: string, offerId: string, maxTries = 12): Promise<Flow> {
  const flow: Flow = { idempotencyKey: randomUUID(), tries: 0 };
  try {
    const found = await client.searchDone(campaignId, person());
    flow.searchId = found.searchId;
    flow.resultId = found.results.get(offerId)?.svc_result_id;
    if (!flow.resultId) throw new Error(`the search showed no result of offer ${offerId}`);
    const body = {
      svc_campaign_id: campaignId,
      svc_affiliate_id: client.affiliateId,
      svc_result_id: flow.resultId,
      search_lead_id: flow.searchId,
      program_id: 'gen',
      tcpa_consent: true,
      consent_button_label: 'Request info',
    };
    flow.submitStart = Date.now();
    for (;;) {
      flow.tries += 1;
      const answer = await tryCall(() =>
        call(client.gatewayUrl, 'POST', '/api/v1/engine/leads', {
          key: client.key,
          body,
          headers: { 'Idempotency-Key': flow.idempotencyKey },
        }),
      );
      const status = answer === 'transport' ? 'transport' : answer.status;
      flow.firstStatus ??= status;
      flow.submitEnd = Date.now();
      if (answer !== 'transport' && (answer.status === 200 || answer.status === 202)) {
        flow.leadId = answer.body.svc_lead_id;
        if (answer.status === 200) flow.finalCode = answer.body.code;
        return flow;
      }
      if (answer !== 'transport' && answer.status !== 503 && answer.status !== 429)
        throw new Error(`submit answered ${answer.status}: ${answer.text}`);
      if (flow.tries >= maxTries) throw new Error(`submit got no decision in ${maxTries} tries (last: ${status})`);
      await pause(1_000);
    }
  } catch (e) {
    flow.error = (e as Error).message;
    return flow;
  }
}

/** Runs flows, `concurrency` at a time, while `more(started)` says so; each flow as it ends goes to `ended`. */
export async function runFlows(
  more: (started: number) => boolean,
  concurrency: number,
  one: () => Promise<Flow>,
  ended?: (f: Flow) => void,
): Promise<Flow[]> {
  const flows: Flow[] = [];
  let started = 0;
  const worker = async () => {
    while (more(started)) {
      started += 1;
      const f = await one();
      flows.push(f);
      ended?.(f);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return flows;
}

/** Reads every PENDING flow's lead status until it is decided (or the time is up), and records the decision. */
export async function settle(client: SubmitClient, flows: Flow[], timeoutMs = 90_000): Promise<void> {
  for (const f of flows) {
    if (!f.leadId || f.finalCode) continue;
    const res = await client.finalStatus(f.leadId, timeoutMs);
    if (res.status === 200 && res.body?.status !== 'pending') f.finalCode = res.body.code;
  }
}
