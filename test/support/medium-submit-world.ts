import { person } from './submit-flow';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import type { DeliveryRequestedV1, SubmitRequestedV1 } from '@lr/contracts';
import { CampaignOffer, Lead, ownResult, ResultCandidate, testMode } from '@lr/domain';
import { CatalogRepository, LeadRepository, newResult, SaleLedger, SearchRepository } from '@lr/persistence';
import { CampaignCatalog } from '@lr/platform';
import { DecideSubmit } from '../../apps/checks/src/decide-submit/decide-submit.usecase';
import { applyMediumCatalog, mediumApiKey, mediumConfig } from './medium';

/**
 * The medium tier's submit world (checks' DecideSubmit and delivery's
 * DeliverLead): a catalog of its own per test (fresh affiliate, campaign,
 * schools and offers), searches stored as the orchestrator stores them
 * (SearchRepository.store, entries built by libs/domain ownResult from the
 * catalog's CampaignOffer), submit messages as the gateway sends them, and a
 * school system on 127.0.0.1 speaking the sandbox school protocol. Lives under
 * test/ so both apps' medium specs can use it (an app never imports another).
 */

/** A fresh person (unique email, phone and last name), as the end-to-end tests make them. */
export const freshPerson = (overrides: { state?: string } = {}): Lead => person(overrides);

export interface OfferOptions {
  offerType?: 'shared' | 'exclusive' | 'true_exclusive';
  /** The offer's own caps (every campaign). */
  caps?: Array<{ period: string; limit: number; timezone?: string }>;
  /** This campaign's caps on the offer. */
  campaignCaps?: Array<{ period: string; limit: number; timezone?: string }>;
  programs?: Array<{ value: string; label: string; eligibility?: Record<string, unknown> }>;
  formFields?: Array<Record<string, unknown>>;
  /** Default: the sandbox adapter to a port nobody listens on (the checks never call it). */
  delivery?: Record<string, unknown>;
  /** The campaign's payout on the offer; default 20. */
  payout?: number | null;
  tcpaText?: string;
  price?: number;
  duplicateWindowDays?: number;
}

export interface SubmitWorld {
  ds: DataSource;
  affiliateId: string;
  campaignId: string;
  apiKeyId: string;
  offerIds: string[];
  /** The catalog file applied, to apply again with changes (applyChanged). */
  catalog: { offers: Array<Record<string, unknown>> } & Record<string, unknown>;
}

/** Applies a catalog of its own: one affiliate, one active campaign with the offers in order, one school per offer. */
export async function submitWorld(ds: DataSource, offers: OfferOptions[]): Promise<SubmitWorld> {
  const affiliateId = randomUUID();
  const campaignId = randomUUID();
  const offerIds = offers.map(() => randomUUID());
  const schoolIds = offers.map(() => randomUUID());
  const catalog = {
    affiliates: [{ id: affiliateId, name: 'Medium Affiliate', status: 'active', dupe_check: false }],
    schools: schoolIds.map((id, i) => ({ id, name: `Medium School ${i + 1}`, logo_url: null })),
    partners: [],
    offers: offers.map((o, i) => ({
      id: offerIds[i],
      name: `Medium Offer ${i + 1}`,
      school_id: schoolIds[i],
      source: 'own',
      offer_type: o.offerType ?? 'shared',
      status: 'active',
      priority: 10 - i,
      price: o.price ?? 45,
      tcpa_text: o.tcpaText ?? `I agree that Medium School ${i + 1} may contact me.`,
      result_ttl_seconds: 900,
      ...(o.duplicateWindowDays !== undefined ? { duplicate_window_days: o.duplicateWindowDays } : {}),
      programs: o.programs ?? [{ value: 'gen', label: 'General Studies' }],
      form_fields: o.formFields ?? [],
      caps: o.caps ?? [],
      delivery: o.delivery ?? { adapter: 'sandbox', url: 'http://127.0.0.1:9/never', timeout_ms: 300 },
    })),
    campaigns: [
      {
        id: campaignId,
        affiliate_id: affiliateId,
        name: 'Medium campaign',
        status: 'active',
        offers: offers.map((o, i) => ({
          offer_id: offerIds[i],
          payout: o.payout === undefined ? 20 : o.payout,
          caps: o.campaignCaps ?? [],
        })),
      },
    ],
  };
  await applyMediumCatalog(ds, catalog);
  const apiKeyId = await mediumApiKey(ds, affiliateId);
  return { ds, affiliateId, campaignId, apiKeyId, offerIds, catalog };
}

/** Applies the world's catalog again with one offer's fields changed (e.g. its consent statement after a search showed it). */
export async function applyChanged(world: SubmitWorld, offerId: string, changes: Record<string, unknown>): Promise<void> {
  const offers = world.catalog.offers.map((o) => (o.id === offerId ? { ...o, ...changes } : o));
  world.catalog = { ...world.catalog, offers };
  await applyMediumCatalog(world.ds, world.catalog);
}

export interface StoredSearch {
  searchId: string;
  lead: Lead;
  isTest: boolean;
  consumerIp: string;
  tracking: Record<string, string>;
  /** The results shown, by offer id. */
  results: Map<string, ResultCandidate>;
}

/**
 * Stores a search of `lead` with a result for each of the world's offers (or
 * `offerIds`), as the orchestrator stores it: the catalog's CampaignOffer, the
 * entry built by ownResult at `at` (its expiry is `result_ttl_seconds` later),
 * the person's keys (none for a test search).
 */
export async function storeSearch(
  world: SubmitWorld,
  lead: Lead,
  opts: {
    isTest?: boolean;
    at?: Date;
    offerIds?: string[];
    programs?: Record<string, string[]>;
    formCertUrl?: string | null;
    searchId?: string;
  } = {},
): Promise<StoredSearch> {
  const at = opts.at ?? new Date();
  const isTest = opts.isTest ?? false;
  const offers: CampaignOffer[] = await new CatalogRepository(world.ds).campaignOffers(world.campaignId);
  const shown = offers.filter((o) => (opts.offerIds ?? world.offerIds).includes(o.offerId));
  const results = new Map<string, ResultCandidate>(
    shown.map((o) => [o.offerId, ownResult(o, opts.programs?.[o.offerId] ?? o.programs.map((p) => p.value), at)]),
  );
  const searchId = opts.searchId ?? randomUUID();
  const consumerIp = '73.12.44.10';
  const tracking = { ip_address: consumerIp, subid: 'medium' };
  const stored = await new SearchRepository(world.ds).store({
    id: searchId,
    affiliateId: world.affiliateId,
    campaignId: world.campaignId,
    apiKeyId: world.apiKeyId,
    isTest,
    lead,
    tracking,
    consumerIp,
    ipSource: 'consumer',
    tcpaConsent: null,
    formCertUrl: opts.formCertUrl ?? null,
    universalLeadCert: null,
    createdAt: at,
    closesAt: new Date(at.getTime() + 30_000),
    personKeys: testMode(isTest).personKeys(lead),
    decisions: Object.fromEntries([...results.values()].map((r) => [r.offerId, { shown: true, result_id: r.resultId }])),
    results: [...results.values()].map((r) => newResult(r)),
    partnerCalls: [],
  });
  if (!stored) throw new Error('search not stored');
  return { searchId, lead, isTest, consumerIp, tracking, results };
}

/** A result submit of `search`'s result for `offerId`, as the gateway publishes it (consent given, the answers given). */
export function resultSubmit(
  world: SubmitWorld,
  search: StoredSearch,
  offerId: string,
  overrides: Partial<SubmitRequestedV1> = {},
): SubmitRequestedV1 {
  const result = search.results.get(offerId);
  if (!result) throw new Error(`the search shows no result of offer ${offerId}`);
  return {
    leadId: randomUUID(),
    kind: 'result_submit',
    affiliateId: world.affiliateId,
    apiKeyId: world.apiKeyId,
    campaignId: world.campaignId,
    resultId: result.resultId,
    searchId: search.searchId,
    offerId: null,
    originLeadId: null,
    lead: null,
    tracking: null,
    consumerIp: null,
    ipSource: null,
    programId: null,
    answers: {},
    tcpaConsent: true,
    consentButtonLabel: 'Request info',
    formCertUrl: null,
    universalLeadCert: null,
    isTest: false,
    requestedAt: new Date().toISOString(),
    ...overrides,
  };
}

/** checks' use case on the medium state, built by hand with its real dependencies. */
export function decideSubmit(ds: DataSource): DecideSubmit {
  return new DecideSubmit(new CampaignCatalog(ds, mediumConfig('checks')), new LeadRepository(ds), new SaleLedger(ds));
}

/**
 * A lead reserved by its real producer (checks' DecideSubmit): a fresh
 * person's search of the world's offer, submitted; the delivery request it
 * forwards to delivery.
 */
export async function reservedLead(
  world: SubmitWorld,
  offerId = world.offerIds[0],
): Promise<{ search: StoredSearch; msg: SubmitRequestedV1; deliver: DeliveryRequestedV1 }> {
  const search = await storeSearch(world, freshPerson(), { offerIds: [offerId] });
  const msg = resultSubmit(world, search, offerId);
  const outcome = await decideSubmit(world.ds).run(msg);
  if (!('deliver' in outcome)) throw new Error(`the submit was not reserved: ${JSON.stringify(outcome.answer)}`);
  return { search, msg, deliver: outcome.deliver };
}

/** A request a school received. */
export interface SchoolRequest {
  path: string;
  idempotencyKey: string | undefined;
  body: unknown;
}

/**
 * A school system on 127.0.0.1 (an external system, not ours) answering as the
 * sandbox school protocol does, by path:
 *   /accept    200 {result: accepted, id}
 *   /reject    200 {result: rejected, reason}
 *   /duplicate 200 {result: duplicate, reason}
 *   /fail      500
 *   /revocations 200 (a revocation notice received); /revocations-ignored 503
 * `?delay=<ms>` answers that much later. Every request is recorded when it
 * arrives (before the answer), by its Idempotency-Key.
 */
export async function fakeSchool(): Promise<{
  url: (path: string) => string;
  received: SchoolRequest[];
  callsFor: (idempotencyKey: string) => number;
  close: () => Promise<void>;
}> {
  const received: SchoolRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const answer = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const url = new URL(req.url ?? '/', 'http://school');
    const key = req.headers['idempotency-key'];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    received.push({ path: url.pathname, idempotencyKey: Array.isArray(key) ? key[0] : key, body });
    const send = () => {
      if (res.destroyed) return;
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      switch (url.pathname) {
        case '/accept':
          return json(200, { result: 'accepted', id: `school-${randomBytes(4).toString('hex')}` });
        case '/reject':
          return json(200, { result: 'rejected', reason: 'not in our area' });
        case '/duplicate':
          return json(200, { result: 'duplicate', reason: 'we have this person' });
        case '/fail':
          return json(500, { error: 'internal' });
        case '/revocations':
          return json(200, { result: 'received' });
        case '/revocations-ignored':
          return json(503, { error: 'unavailable' });
        default:
          return json(404, { error: 'no_route' });
      }
    };
    const delay = Number(url.searchParams.get('delay') ?? 0);
    if (delay <= 0) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, delay);
    timers.add(timer);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    callsFor: (key) => received.filter((r) => r.idempotencyKey === key).length,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
