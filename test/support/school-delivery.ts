import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MockAgent } from 'undici';
import { mockHttpDispatcher } from './mock-http-dispatcher';
import type { DeliverySettings } from '@lr/domain';
import type { SchoolDelivery } from '../../apps/delivery/src/schools/school-adapter';

/** A delivery as the delivery service builds it, for the school adapters' tests: test/fixtures/school-lead.json with these settings. */
export function sampleDelivery(settings: DeliverySettings, overrides: Partial<SchoolDelivery> = {}): SchoolDelivery {
  const lead = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'school-lead.json'), 'utf8')) as Omit<SchoolDelivery, 'settings'>;
  return { ...lead, settings, ...overrides };
}

/** A request the stub answered, as sent. */
export interface SentRequest {
  url: string;
  method: string;
  /** The body parsed as JSON. */
  body: unknown;
  headers: Record<string, string>;
}

/**
 * A stand-in for the HTTP client: undici's MockAgent as its global dispatcher,
 * which postJsonAnswer's undici request() uses (plain code, no test
 * framework: this file is compiled with the app). Call install() before each
 * test and restore() after. Each answer set answers the next call, to any URL.
 */
export function httpStub() {
  let mocked: ReturnType<typeof mockHttpDispatcher> | undefined;
  let agent: MockAgent | undefined;
  let anyOrigin: ReturnType<MockAgent['get']> | undefined;
  const mock = () => {
    if (!agent || !anyOrigin) throw new Error('httpStub: install() first');
    return { agent, anyOrigin };
  };
  const next = () => mock().anyOrigin.intercept({ path: () => true, method: () => true });
  const calls = (): SentRequest[] =>
    (mock().agent.getCallHistory()?.calls() ?? []).map((c) => ({
      url: c.fullUrl,
      method: c.method,
      body: typeof c.body === 'string' ? (JSON.parse(c.body) as unknown) : c.body,
      headers: (c.headers ?? {}) as Record<string, string>,
    }));
  return {
    install(): void {
      mocked = mockHttpDispatcher();
      agent = mocked.agent;
      // One pool for every origin: the interceptors set on it later serve whichever URL is called.
      anyOrigin = agent.get(() => true);
    },
    async restore(): Promise<void> {
      await mocked?.restore();
      mocked = agent = anyOrigin = undefined;
    },
    /** The next call gets this status, body and headers. */
    answer(status: number, body = '', headers: Record<string, string> = {}): void {
      next().reply(status, body, { headers });
    },
    json(body: string, status = 200): void {
      next().reply(status, body, { headers: { 'content-type': 'application/json' } });
    },
    /** The next call fails as undici fails it (e.g. an error with code ECONNREFUSED). */
    fail(error: Error): void {
      next().replyWithError(error);
    },
    /** The requests made since install(). */
    get calls(): SentRequest[] {
      return calls();
    },
    /** What call i sent. */
    sent(i = 0): SentRequest {
      return calls()[i];
    },
  };
}
