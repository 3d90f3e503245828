import { randomBytes, randomInt } from 'node:crypto';
import { call, HttpAnswer } from './http';

/** A fresh person: unique email, phone and last name, so no two tests share a dedupe key. */
export function person(overrides: { state?: string; education_level?: string } = {}) {
  const tag = randomBytes(5).toString('hex');
  const letters = tag.replace(/[0-9]/g, (d) => String.fromCharCode(97 + Number(d)));
  return {
    personal: {
      first_name: 'Ada',
      last_name: `Love${letters}`,
      email: `ada.${tag}@example.com`,
      phone: `512${randomInt(2000000, 9999999)}`,
      date_of_birth: '1995-04-12',
    },
    address: { state: overrides.state ?? 'TX', zip_code: '75001', city: 'Dallas', address_line_1: '1 Main St' },
    education: { education_level: overrides.education_level ?? 'associate', high_school_graduation_year: '2013' },
  };
}

export type Person = ReturnType<typeof person>;

/** Talks to one gateway as one affiliate. */
export class SubmitClient {
  constructor(
    readonly gatewayUrl: string,
    readonly key: string,
    readonly affiliateId: string,
  ) {}

  search(campaignId: string, lead: Person, extra: Record<string, unknown> = {}): Promise<HttpAnswer> {
    return call(this.gatewayUrl, 'POST', '/api/v1/engine/search', {
      key: this.key,
      body: {
        svc_campaign_id: campaignId,
        svc_affiliate_id: this.affiliateId,
        lead,
        tracking: { ip_address: '73.12.44.10', subid: 'e2e' },
        ...extra,
      },
    });
  }

  /** Searches, polls until done, and returns the search id and its results by offer id. */
  async searchDone(campaignId: string, lead: Person, extra: Record<string, unknown> = {}) {
    const first = await this.search(campaignId, lead, extra);
    if (first.status !== 200) throw new Error(`search answered ${first.status}: ${first.text}`);
    let body = first.body;
    for (let i = 0; !body.processing_done && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 150));
      body = (await call(this.gatewayUrl, 'GET', `/api/v1/engine/results/${body.svc_lead_id}`, { key: this.key })).body;
    }
    const results = new Map<string, any>(body.offers.map((o: any) => [o.offer.id, o])); // eslint-disable-line @typescript-eslint/no-explicit-any -- a result entry as the JSON answer shows it; each test reads the fields it asserts on.
    return { searchId: body.svc_lead_id as string, results, body };
  }

  submit(campaignId: string, searchId: string, resultId: string, extra: Record<string, unknown> = {}): Promise<HttpAnswer> {
    return call(this.gatewayUrl, 'POST', '/api/v1/engine/leads', {
      key: this.key,
      body: {
        svc_campaign_id: campaignId,
        svc_affiliate_id: this.affiliateId,
        svc_result_id: resultId,
        search_lead_id: searchId,
        tcpa_consent: true,
        consent_button_label: 'Request info',
        ...extra,
      },
    });
  }

  directPost(campaignId: string, offerId: string, lead: Person, extra: Record<string, unknown> = {}): Promise<HttpAnswer> {
    return call(this.gatewayUrl, 'POST', '/api/v1/engine/leads', {
      key: this.key,
      body: {
        svc_campaign_id: campaignId,
        svc_affiliate_id: this.affiliateId,
        svc_offer_id: offerId,
        lead,
        tracking: { ip_address: '73.12.44.10' },
        tcpa_consent: true,
        ...extra,
      },
    });
  }

  leadStatus(leadId: string, key = this.key): Promise<HttpAnswer> {
    return call(this.gatewayUrl, 'GET', `/api/v1/engine/leads/${leadId}`, { key });
  }

  /** Polls the lead status until it is stored and no longer pending. */
  async finalStatus(leadId: string, timeoutMs = 20_000): Promise<HttpAnswer> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const res = await this.leadStatus(leadId);
      const waiting = res.status === 404 || res.body?.status === 'pending';
      if (!waiting || Date.now() > end) return res;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Leads a sandbox school received, by our lead id (the Idempotency-Key). */
export async function receivedBySchool(sandboxUrl: string, school: string): Promise<Map<string, number>> {
  const res = await fetch(`${sandboxUrl}/schools/${school}/received?limit=10000`);
  const body = (await res.json()) as { leads: Array<{ headers: Record<string, string> }> };
  const counts = new Map<string, number>();
  for (const l of body.leads) {
    const key = l.headers['idempotency-key'];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
