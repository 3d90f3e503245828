import type { DeliverySettings } from '@lr/domain';
import type { SchoolDelivery } from './school-adapter';

/** A delivery as the delivery service builds it, for the school adapters' tests. */
export function sampleDelivery(settings: DeliverySettings, overrides: Partial<SchoolDelivery> = {}): SchoolDelivery {
  return {
    leadId: '5b1f0c7e-1f2a-4c3b-9d4e-5f6a7b8c9d0e',
    offer: { id: '0c8a2f4e-6b1d-4e3a-8f9c-1a2b3c4d5e6f', name: 'Northfield Online Nursing', schoolName: 'Northfield University' },
    settings,
    lead: {
      personal: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '5551234567' },
      address: { state: 'CA', zip_code: '90210' },
      education: { education_level: 'associate', high_school_graduation_year: '2015' },
    },
    tracking: { ip_address: '203.0.113.9', subid: 's-42' },
    consumerIp: '203.0.113.9',
    programId: 'bsn',
    answers: { hs_grad_year: '2015' },
    consent: {
      tcpaConsent: true,
      tcpaText: 'By clicking Request Info I agree that Northfield University may contact me.',
      buttonLabel: 'Request Info',
      consentedAt: '2026-01-05T14:03:07.000Z',
      ip: '203.0.113.9',
      formCertUrl: null,
      universalLeadCert: null,
    },
    submittedAt: '2026-01-05T14:03:07.000Z',
    ...overrides,
  };
}

/**
 * A stand-in for global fetch (plain code, no test framework: this file is
 * compiled with the app). Call install() before each test and restore() after.
 */
export function fetchStub() {
  const original = globalThis.fetch;
  const calls: Array<[URL, RequestInit]> = [];
  let reply: () => Promise<Response> = () => Promise.reject(new Error('fetchStub: no answer set'));
  return {
    calls,
    install(): void {
      calls.length = 0;
      globalThis.fetch = ((url: URL, init: RequestInit) => {
        calls.push([url, init]);
        return reply();
      }) as typeof fetch;
    },
    restore(): void {
      globalThis.fetch = original;
    },
    answer(res: Response | Promise<Response>): void {
      reply = () => Promise.resolve(res);
    },
    json(body: string, status = 200): void {
      reply = () => Promise.resolve(new Response(body, { status }));
    },
    /** What call i sent. */
    sent(i = 0): { url: string; init: RequestInit; body: unknown; headers: Record<string, string> } {
      const [url, init] = calls[i];
      return { url: url.toString(), init, body: JSON.parse(init.body as string) as unknown, headers: init.headers as Record<string, string> };
    },
  };
}
