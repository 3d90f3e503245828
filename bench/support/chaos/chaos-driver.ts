import { randomUUID } from 'node:crypto';
import type { Agent } from 'node:http';
import type { FormField, ResultEntry } from '../../../libs/contracts/src';
import { benchLead } from '../bench-catalog';
import { keepAliveAgent, send } from '../http-client';

/** Counts of requests sent and their answers by HTTP status (`transport` when no answer came), and when each answer came. */
export class Tally {
  sent = 0;
  readonly byStatus: Record<string, number> = {};
  /** Error answers (4xx, 5xx) by status, code and `error`/`field`, e.g. `404 NOT_FOUND field=svc_lead_id`. */
  readonly errors: Record<string, number> = {};
  /** [ms since the tally began, HTTP status or 0 for no answer] per answer. */
  readonly timeline: Array<[number, number]> = [];
  private readonly began = Date.now();

  count(status: number | 'transport', body?: { code?: unknown; error?: unknown; field?: unknown }): void {
    const key = String(status);
    this.byStatus[key] = (this.byStatus[key] ?? 0) + 1;
    if (typeof status === 'number' && status >= 400) {
      const detail = [body?.code, body?.error && `error=${String(body.error)}`, body?.field && `field=${String(body.field)}`]
        .filter(Boolean)
        .join(' ');
      const label = `${status} ${detail}`.trim();
      this.errors[label] = (this.errors[label] ?? 0) + 1;
    }
    this.timeline.push([Date.now() - this.began, status === 'transport' ? 0 : status]);
  }

  answered(status: number): number {
    return this.byStatus[String(status)] ?? 0;
  }
}

/** How a submit was sent: alone, as one of several copies of a result, with other results of its search, as a repeat, or a direct post. */
export type Scenario = 'single' | 'same_result' | 'several_results' | 'repeat' | 'direct_post' | 'direct_retry';

/** A submit the gateway took (200 or 202 with a svc_lead_id): what the driver was told, first and finally. */
export interface SubmitRecord {
  leadId: string;
  offerId: string;
  searchId: string | null;
  scenario: Scenario;
  firstHttp: number;
  firstCode: string;
  /** The decision the driver knows (the 200 answer, or the lead-status read after a PENDING). */
  finalCode?: string;
}

/** Every answer one submit got: its first try and its retries, all with the same Idempotency-Key and body. */
export interface KeyedSubmit {
  key: string;
  answers: Array<{ status: number | 'transport'; leadId?: string; code?: string }>;
}

/** How many times a submit that got no answer or a 503 is sent again, with its Idempotency-Key, as an affiliate's client would. */
const SUBMIT_RETRIES = 4;

/** A submit with no decision in its answer (503, no answer at all) after its retries: the driver has no svc_lead_id for it. */
export interface FailedSubmit {
  status: number | 'transport';
  offerId: string;
  /** The result submitted, or null for a direct post. */
  resultId: string | null;
  /** A direct post's svc_lead_id retried, if any. */
  originLeadId: string | null;
}

export interface DriverOptions {
  /** The gateway's current address (it moves when the gateway is restarted). */
  gatewayUrl: () => string;
  key: string;
  affiliateId: string;
  campaignId: string;
  ownOfferIds: string[];
  run: string;
  random: () => number;
  /** How long the driver waits for a submit's answer (the gateway answers PENDING after SUBMIT_ANSWER_TIMEOUT_MS). */
  submitTimeoutMs: number;
  /** Wait before polling for partner results. */
  partnerWaitMs: number;
}

interface Answer {
  status: number | 'transport';
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON answer of any shape; each test reads the fields it asserts on.
}

type Lead = ReturnType<typeof benchLead>;

const TRACKING = { ip_address: '73.12.44.10', subid: 'chaos' };

/** A program and the answers a result asks for: the first program, the first option (or a text) for each required question. */
export function answersFor(entry: ResultEntry): Record<string, string> {
  const out: Record<string, string> = {};
  const program = entry.programs[0]?.value;
  if (program !== undefined) out.program_id = program;
  const needed = (f: FormField) => f.required || (program !== undefined && (f.required_when?.program_ids ?? []).includes(program));
  for (const f of entry.form_fields) if (needed(f)) out[f.name] = f.options?.[0]?.value ?? 'yes';
  return out;
}

/**
 * The fault run's traffic: `clients` concurrent loops, each a search (a new
 * person, sometimes one seen before) followed by submits of its results —
 * one result; several copies of one result at once; several results of the
 * search at once; a result, then the same result again and another one — and
 * now and then a direct post with concurrent retries of the same lead to other
 * offers. Every answer is counted; every submit the gateway took is kept.
 */
export class ChaosDriver {
  readonly searches = new Tally();
  readonly polls = new Tally();
  readonly submits = new Tally();
  readonly statusReads = new Tally();
  readonly leads = new Map<string, SubmitRecord>();
  /** Submits answered 503 or not at all, retries included: the system may still have stored and decided them. */
  readonly failedSubmits: FailedSubmit[] = [];
  /** Every submit with the answers of its tries. */
  readonly keyedSubmits: KeyedSubmit[] = [];
  private readonly agent: Agent;
  private people = 0;
  private readonly seen: number[] = [];
  private stopped = false;

  constructor(private readonly o: DriverOptions) {
    this.agent = keepAliveAgent(256);
  }

  /** Runs the client loops until stop(); resolves once every loop has ended. */
  async run(clients: number): Promise<void> {
    await Promise.all(Array.from({ length: clients }, () => this.loop()));
  }

  stop(): void {
    this.stopped = true;
  }

  close(): void {
    this.agent.destroy();
  }

  /** Submits the driver has no decision for yet (PENDING answers). */
  undecided(): SubmitRecord[] {
    return [...this.leads.values()].filter((l) => l.finalCode === undefined || l.finalCode === 'PENDING');
  }

  /** Reads the current decision of every undecided submit (GET /api/v1/engine/leads/{id}); returns how many are still undecided. */
  async readDecisions(): Promise<number> {
    const open = this.undecided();
    for (let i = 0; i < open.length; i += 16) {
      await Promise.all(
        open.slice(i, i + 16).map(async (l) => {
          const a = await this.call('GET', `/api/v1/engine/leads/${l.leadId}`, undefined, 5_000, this.statusReads);
          if (a.status === 200 && a.body?.status !== 'pending') l.finalCode = a.body.code;
        }),
      );
    }
    return this.undecided().length;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        if (this.o.random() < 0.1) await this.directPosts();
        else await this.searchAndSubmit();
      } catch (e) {
        // A bug in the driver must not pass for a fault of the system.
        this.stopped = true;
        throw e;
      }
      await sleep(20 + this.o.random() * 80);
    }
  }

  private person(): { n: number; lead: Lead } {
    // One search in ten is a person searched before: a second lead group of the same person (the duplicate rule).
    const n = this.seen.length > 0 && this.o.random() < 0.1 ? this.pick(this.seen) : this.people++;
    if (!this.seen.includes(n)) this.seen.push(n);
    return { n, lead: benchLead(this.o.run, n) };
  }

  private async searchAndSubmit(): Promise<void> {
    const { lead } = this.person();
    const body = { svc_campaign_id: this.o.campaignId, svc_affiliate_id: this.o.affiliateId, lead, tracking: TRACKING, tcpa_consent: true };
    const answer = await this.call('POST', '/api/v1/engine/search', body, 10_000, this.searches);
    if (answer.status !== 200) return this.backOff(answer.status);
    const searchId: string = answer.body.svc_lead_id;
    let entries: ResultEntry[] = answer.body.offers;
    if (this.o.random() < 0.4) {
      // Partner results arrive after the first answer: poll for them, then choose among all.
      await sleep(this.o.partnerWaitMs);
      const polled = await this.call('GET', `/api/v1/engine/results/${searchId}`, undefined, 5_000, this.polls);
      if (polled.status === 200) entries = polled.body.offers;
    }
    if (entries.length === 0) return;
    const r = this.o.random();
    if (r < 0.25) {
      await this.submit(searchId, this.pick(entries), 'single');
    } else if (r < 0.45) {
      const entry = this.pick(entries);
      const copies = 2 + Math.floor(this.o.random() * 2);
      await Promise.all(Array.from({ length: copies }, () => this.submit(searchId, entry, 'same_result')));
    } else if (r < 0.75) {
      const chosen = this.shuffle(entries).slice(0, 3 + Math.floor(this.o.random() * 3));
      await Promise.all(chosen.map((e) => this.submit(searchId, e, 'several_results')));
    } else if (r < 0.92) {
      const [first, second] = this.shuffle(entries);
      await this.submit(searchId, first, 'repeat');
      await this.submit(searchId, first, 'repeat');
      if (second) await this.submit(searchId, second, 'repeat');
    }
    // else: a search nobody submits.
  }

  /** A direct post, then concurrent posts of the same lead (its svc_lead_id) to three other offers: one lead group. */
  private async directPosts(): Promise<void> {
    const { lead } = this.person();
    const [first, ...others] = this.shuffle(this.o.ownOfferIds);
    const origin = await this.post(first, lead, undefined, 'direct_post');
    if (!origin) return;
    await Promise.all(others.slice(0, 3).map((offerId) => this.post(offerId, lead, origin, 'direct_retry')));
  }

  private async submit(searchId: string, entry: ResultEntry, scenario: Scenario): Promise<void> {
    const body = {
      svc_campaign_id: this.o.campaignId,
      svc_affiliate_id: this.o.affiliateId,
      svc_result_id: entry.svc_result_id,
      search_lead_id: searchId,
      tcpa_consent: true,
      consent_button_label: 'Request info',
      ...answersFor(entry),
    };
    await this.sendSubmit(body, { offerId: entry.offer.id, resultId: entry.svc_result_id, originLeadId: null }, searchId, scenario);
  }

  private async post(offerId: string, lead: Lead, originLeadId: string | undefined, scenario: Scenario): Promise<string | undefined> {
    const body = {
      svc_campaign_id: this.o.campaignId,
      svc_affiliate_id: this.o.affiliateId,
      svc_offer_id: offerId,
      ...(originLeadId ? { svc_lead_id: originLeadId } : {}),
      lead,
      tracking: TRACKING,
      tcpa_consent: true,
    };
    return this.sendSubmit(body, { offerId, resultId: null, originLeadId: originLeadId ?? null }, null, scenario);
  }

  /**
   * Sends one submit with an Idempotency-Key, and again with the same key and
   * body while it gets no answer or a 503 (at most SUBMIT_RETRIES times, with
   * back-off); keeps it when the gateway took it (a svc_lead_id in a 200 or 202).
   */
  private async sendSubmit(
    body: unknown,
    target: Omit<FailedSubmit, 'status'>,
    searchId: string | null,
    scenario: Scenario,
  ): Promise<string | undefined> {
    const keyed: KeyedSubmit = { key: randomUUID(), answers: [] };
    this.keyedSubmits.push(keyed);
    let a: Answer;
    for (let retry = 0; ; retry++) {
      a = await this.call('POST', '/api/v1/engine/leads', body, this.o.submitTimeoutMs, this.submits, { 'idempotency-key': keyed.key });
      keyed.answers.push({ status: a.status, leadId: a.body?.svc_lead_id, code: a.body?.code });
      if ((a.status !== 'transport' && a.status !== 503) || retry >= SUBMIT_RETRIES || this.stopped) break;
      await sleep(Math.min(3_000, 300 * 2 ** retry));
    }
    if ((a.status !== 200 && a.status !== 202) || typeof a.body?.svc_lead_id !== 'string') {
      if (a.status === 'transport' || a.status === 503) {
        this.failedSubmits.push({ status: a.status, ...target });
        await this.backOff(a.status);
      }
      return undefined;
    }
    const offerId = target.offerId;
    const leadId: string = a.body.svc_lead_id;
    this.leads.set(leadId, {
      leadId,
      offerId,
      searchId,
      scenario,
      firstHttp: a.status,
      firstCode: a.body.code,
      ...(a.status === 200 ? { finalCode: a.body.code } : {}),
    });
    return leadId;
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    timeoutMs: number,
    tally: Tally,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    tally.sent += 1;
    let answer: Answer;
    try {
      const res = await send(
        this.agent,
        new URL(this.o.gatewayUrl()),
        {
          method,
          path,
          body: body === undefined ? undefined : JSON.stringify(body),
          headers: { authorization: `Bearer ${this.o.key}`, ...headers },
        },
        timeoutMs,
      );
      let parsed: unknown;
      try {
        parsed = JSON.parse(res.body.toString('utf8'));
      } catch {
        parsed = undefined;
      }
      answer = { status: res.status, body: parsed };
    } catch {
      answer = { status: 'transport', body: undefined };
    }
    tally.count(answer.status, answer.body);
    return answer;
  }

  /** After an error answer: a short pause, longer while the gateway is unreachable. */
  private backOff(status: number | 'transport'): Promise<void> {
    return sleep(status === 'transport' ? 300 : status === 503 ? 150 : 50);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.o.random() * items.length)];
  }

  private shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.o.random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A small seeded generator (mulberry32), so a run's traffic can be replayed with its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
