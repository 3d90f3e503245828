import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { DataSource as TypeOrmDataSource, type DataSource } from 'typeorm';
import type {
  DeliveryRequestedV1,
  PartnerAnswer,
  PartnerOfferResult,
  PartnerSearchAnsweredV2,
  PartnerSearchRequestedV2,
  SearchMeta,
  SearchRequestedV1,
  SubmitRequestedV1,
} from '../../libs/contracts/src';
import {
  type CampaignOffer,
  capPeriodStart,
  capScope,
  type CapSlot,
  cents,
  type DedupeKey,
  type Lead,
  leadDedupeKeys,
  ownResult,
  type ResultCandidate,
  SUBMIT,
  testMode,
} from '../../libs/domain/src';
import {
  CatalogRepository,
  ConfigKeyWrapper,
  ContactSealer,
  SEALER_DEFAULTS,
  createDataSource,
  DataKeys,
  dataSourceOptions,
  hashApiKey,
  LeadRepository,
  newResult,
  SaleLedger,
  SearchRepository,
} from '../../libs/persistence/src';
import { OFFER_DECISIONS } from '../../libs/persistence/src/queries/shown-results';
import { CampaignCatalog } from '../../libs/platform/src';
import { type SearchAnswer, searchStateKey, SearchStatePublisher } from '../../libs/search-state/src';
import { AppConfig, AppName, keyStoreUrl, loadConfig } from '../../libs/config/src';
import { applyCatalog } from '../../apps/ops/src/catalog/apply-catalog';
import { DecideSubmit } from '../../apps/checks/src/decide-submit/decide-submit.usecase';
import { MergePartnerAnswer } from '../../apps/search-orchestrator/src/merge-partner-answer/merge-partner-answer.usecase';
import { StartSearch } from '../../apps/search-orchestrator/src/start-search/start-search.usecase';
import { campaign, catalogOffer, partnerOffer } from './catalog-builder';
import { MEDIUM_DATABASE_URL, MEDIUM_REDIS_URL } from './medium-env';
import { person as e2ePerson } from './submit-flow';
import { TEST_PERSON_KEY_SECRET } from './person-key';

/*
 * The medium tier's one world module (STYLE.md; every *.medium-spec.ts uses
 * it): the medium state (database, Redis, configuration, catalog apply, API
 * keys); the submit world (checks' DecideSubmit, delivery's DeliverLead, a
 * school on 127.0.0.1) and its returns; the search world (the
 * search-orchestrator's StartSearch and MergePartnerAnswer, partner answers,
 * readers of what PostgreSQL and Redis hold). Catalogs are built with
 * catalog-builder.ts, as in every tier.
 */

// ---- The medium state ----

/**
 * The medium tier (STYLE.md): each use case against the real PostgreSQL,
 * with no broker (a use case returns what its handler publishes). Its own
 * database and Redis db, reset once per run (medium-setup.ts); each test file
 * uses its own ids and Redis key prefix.
 */
export { MEDIUM_DATABASE_URL, MEDIUM_REDIS_URL };

export async function mediumDataSource(poolSize = 4): Promise<DataSource> {
  // As the services' DatabaseModule connects: prepared statements planned once, generically.
  const ds = createDataSource({ url: MEDIUM_DATABASE_URL, poolSize, timeoutMs: 10_000, genericPlans: true });
  await ds.initialize();
  return ds;
}

/** The medium tier's key store (its own database, `<medium db>_keys`), as the services connect to it. */
export async function mediumKeyStore(poolSize = 2): Promise<DataSource> {
  const ds = createDataSource({ url: keyStoreUrl(MEDIUM_DATABASE_URL, undefined), poolSize, timeoutMs: 10_000, genericPlans: true });
  await ds.initialize();
  return ds;
}

/**
 * A contact sealer on the key store beside `databaseUrl` (the medium one by
 * default), under the configuration's master keys, as the services build it.
 * Its connection opens on first use and lets the process exit when idle, so a
 * test file need not close it. One per database, unless `cached: false` (a
 * sealer that keeps no opened key: what a destroyed key leaves readable).
 */
export function keyStoreSealer(databaseUrl: string = MEDIUM_DATABASE_URL, { cached = true } = {}): ContactSealer {
  if (!cached)
    return new ContactSealer(
      new LazyDataKeys(keyStoreUrl(databaseUrl, undefined)),
      new ConfigKeyWrapper(mediumConfig('ops').keyStore.masterKeys),
      { ...SEALER_DEFAULTS, cacheTtlMs: 0 },
    );
  let sealer = sealers.get(databaseUrl);
  if (!sealer) {
    sealer = new ContactSealer(
      new LazyDataKeys(keyStoreUrl(databaseUrl, undefined)),
      new ConfigKeyWrapper(mediumConfig('ops').keyStore.masterKeys),
    );
    sealers.set(databaseUrl, sealer);
  }
  return sealer;
}

/** The sealer on the key store beside the database `ds` is connected to (the medium one, or the integration tier's). */
export function sealerBeside(ds: DataSource): ContactSealer {
  return keyStoreSealer((ds.options as { url?: string }).url ?? MEDIUM_DATABASE_URL);
}

/** One sealer (and one key-store connection) per database in a test file. */
const sealers = new Map<string, ContactSealer>();

/** DataKeys whose DataSource connects on first use (test helper: keyStoreSealer). */
class LazyDataKeys extends DataKeys {
  private ready?: Promise<DataKeys>;

  constructor(private readonly url: string) {
    super(undefined as never);
  }

  private keys(): Promise<DataKeys> {
    this.ready ??= (async () => {
      const options = dataSourceOptions({ url: this.url, poolSize: 1, timeoutMs: 10_000 });
      const ds = new TypeOrmDataSource({
        ...options,
        extra: { ...(options.extra as object), allowExitOnIdle: true, idleTimeoutMillis: 500 },
      } as typeof options);
      await ds.initialize();
      return new DataKeys(ds);
    })();
    return this.ready;
  }

  override async insert(...a: Parameters<DataKeys['insert']>) {
    return (await this.keys()).insert(...a);
  }
  override async read(...a: Parameters<DataKeys['read']>) {
    return (await this.keys()).read(...a);
  }
  override async destroy(...a: Parameters<DataKeys['destroy']>) {
    return (await this.keys()).destroy(...a);
  }
  override async toRewrap(...a: Parameters<DataKeys['toRewrap']>) {
    return (await this.keys()).toRewrap(...a);
  }
  override async rewrap(...a: Parameters<DataKeys['rewrap']>) {
    return (await this.keys()).rewrap(...a);
  }
  override async byMasterKey() {
    return (await this.keys()).byMasterKey();
  }
}

/** A Redis client of the medium tier under a key prefix of this test file. */
export function mediumRedis(): Redis {
  return new Redis(MEDIUM_REDIS_URL, { keyPrefix: `medium:${randomBytes(4).toString('hex')}:`, maxRetriesPerRequest: 1 });
}

/** The app's configuration as it would start on the medium state (no catalog cache, so each test sees what it applied). */
export function mediumConfig(app: AppName, extra: Record<string, string> = {}): AppConfig {
  return loadConfig(app, {
    NODE_ENV: 'test',
    DATABASE_URL: MEDIUM_DATABASE_URL,
    REDIS_URL: MEDIUM_REDIS_URL,
    CATALOG_CACHE_MS: '0',
    LOG_LEVEL: 'warn',
    ...extra,
  });
}

/** Applies a catalog file's content as `ops catalog apply` does (validated, one transaction); throws on a refused file. */
export async function applyMediumCatalog(ds: DataSource, catalog: unknown): Promise<void> {
  const outcome = await applyCatalog(ds, catalog);
  if (!outcome.ok) throw new Error(`catalog refused: ${JSON.stringify(outcome.issues)}`);
}

/** An API key of the affiliate (searches and leads reference one), stored as `keys issue` stores it. */
export async function mediumApiKey(ds: DataSource, affiliateId: string): Promise<string> {
  const id = randomUUID();
  await ds.query(`INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix, limits) VALUES ($1, $2, $3, 'lr_medi', '{}')`, [
    id,
    affiliateId,
    hashApiKey(randomUUID()),
  ]);
  return id;
}

// ---- The submit world ----

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
export const freshPerson = (overrides: { state?: string } = {}): Lead => e2ePerson(overrides);

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
    offers: offers.map((o, i) =>
      catalogOffer(offerIds[i], schoolIds[i], `Medium Offer ${i + 1}`, {
        source: 'own',
        offer_type: o.offerType ?? 'shared',
        priority: 10 - i,
        price: o.price ?? 45,
        tcpa_text: o.tcpaText ?? `I agree that Medium School ${i + 1} may contact me.`,
        result_ttl_seconds: 900,
        ...(o.duplicateWindowDays !== undefined ? { duplicate_window_days: o.duplicateWindowDays } : {}),
        programs: o.programs ?? [{ value: 'gen', label: 'General Studies' }],
        form_fields: o.formFields ?? [],
        caps: o.caps ?? [],
        delivery: o.delivery ?? { adapter: 'sandbox', url: 'http://127.0.0.1:9/never', timeout_ms: 300 },
      }),
    ),
    campaigns: [
      campaign(
        campaignId,
        affiliateId,
        'Medium campaign',
        offers.map((o, i) => ({
          offer_id: offerIds[i],
          payout: o.payout === undefined ? 20 : o.payout,
          caps: o.campaignCaps ?? [],
        })),
      ),
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
    personKeys: testMode(isTest).personKeys(TEST_PERSON_KEY_SECRET, lead),
    contact: null,
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
  const config = mediumConfig('checks');
  return new DecideSubmit(new CampaignCatalog(ds, config), new LeadRepository(ds), new SaleLedger(ds), sealerBeside(ds), config);
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

// ---- Returns: the submit world with return policies, and leads sold ----

/** Accepted leads in bulk, as the statement bench seeds them (one definition for both). */
export { seedAcceptedLeads } from '../../bench/support/accepted-leads';

/** An offer of a returns world: the submit world's options, and its return policy as the catalog file gives it (absent: none). */
export type ReturnsOffer = OfferOptions & { returns?: { window_days: number; reasons: string[]; refunds_cap?: boolean } };

/** The medium tier's world for returns: the submit world (one school per offer) with each offer's return policy applied. */
export async function returnsWorld(ds: SubmitWorld['ds'], offers: ReturnsOffer[]): Promise<SubmitWorld & { schoolIds: string[] }> {
  const world = await submitWorld(ds, offers);
  for (const [i, o] of offers.entries()) if (o.returns) await applyChanged(world, world.offerIds[i], { returns: o.returns });
  const schoolIds = world.catalog.offers.map((o) => o.school_id as string);
  return { ...world, schoolIds };
}

/**
 * A lead sold by its real producers: a fresh person's search of the offer,
 * reserved by checks' DecideSubmit (its cap slots taken), then settled
 * accepted as delivery books a buyer's acceptance (the payout of the sale).
 */
export async function soldLead(world: SubmitWorld, offerId: string): Promise<string> {
  const { deliver } = await reservedLead(world, offerId);
  const payout = deliver.payout === null ? null : cents(deliver.payout);
  await new SaleLedger(world.ds).settle({
    leadId: deliver.leadId,
    outcome: 'accepted',
    decision: SUBMIT.accepted,
    attempt: null,
    payout,
    endsOtherSales: false,
  });
  return deliver.leadId;
}

// ---- The search world ----

/**
 * What the search-orchestrator's medium tests share (start-search and
 * merge-partner-answer): a small catalog with fresh ids per test, the use
 * cases built by hand on the real PostgreSQL and Redis, messages, seeds of
 * what other use cases would have written (cap usage, sales, dedupe keys),
 * and readers of what PostgreSQL and Redis hold.
 */

export const CAP_TZ = 'America/Chicago';

/** One offer of a test campaign; the keys name the school and partner (created on the fly). */
export interface OfferSpec {
  school: string;
  /** A partner offer of this partner network; an own offer when absent. */
  partner?: string;
  priority?: number;
  /** The campaign's payout on the offer (null: none configured). */
  payout?: number | null;
  status?: 'active' | 'paused';
  offerType?: 'shared' | 'exclusive' | 'true_exclusive';
  eligibility?: Record<string, unknown>;
  /** Own offers only. */
  programs?: Array<{ value: string; label: string; eligibility?: Record<string, unknown> }>;
  caps?: Array<{ period: string; limit: number; timezone?: string }>;
  campaignCaps?: Array<{ period: string; limit: number; timezone?: string }>;
  duplicateWindowDays?: number;
  resultTtlSeconds?: number;
}

export interface World<K extends string> {
  ids: {
    affiliate: string;
    campaign: string;
    apiKey: string;
    offers: Record<K, string>;
    schools: Record<string, string>;
    partners: Record<string, string>;
  };
  specs: Record<K, OfferSpec>;
  /** The catalog file's content, with some offers changed. */
  catalog(changes?: Partial<Record<K, Partial<OfferSpec>>>): unknown;
  /** Applies the catalog again with some offers changed (`ops catalog apply`). */
  change(changes: Partial<Record<K, Partial<OfferSpec>>>): Promise<void>;
  externalId(key: K): string;
  offerName(key: K): string;
  schoolName(key: K): string;
  partnerName(partnerKey: string): string;
  /** The offer key of an offer id. */
  keyOf(offerId: string): K;
}

/** A fresh catalog (affiliate, campaign in `offers` order, schools, partners, offers) applied as `ops catalog apply` does, and an API key. */
export async function world<K extends string>(ds: DataSource, specs: Record<K, OfferSpec>): Promise<World<K>> {
  const keys = Object.keys(specs) as K[];
  const tag = randomUUID().slice(0, 8);
  const offers = Object.fromEntries(keys.map((k) => [k, randomUUID()])) as Record<K, string>;
  const schools: Record<string, string> = {};
  const partners: Record<string, string> = {};
  for (const k of keys) {
    schools[specs[k].school] ??= randomUUID();
    const p = specs[k].partner;
    if (p) partners[p] ??= randomUUID();
  }
  const ids = { affiliate: randomUUID(), campaign: randomUUID(), apiKey: '', offers, schools, partners };
  const offerName = (k: K) => `Offer ${k} ${tag}`;
  const schoolName = (k: K) => `School ${specs[k].school} ${tag}`;
  const partnerName = (p: string) => `Partner ${p} ${tag}`;
  const externalId = (k: K) => `ext-${k}-${offers[k]}`;
  const caps = (list: OfferSpec['caps']) => (list ?? []).map((c) => ({ period: c.period, limit: c.limit, timezone: c.timezone ?? CAP_TZ }));

  const catalog = (changes: Partial<Record<K, Partial<OfferSpec>>> = {}) => {
    const spec = (k: K): OfferSpec => ({ ...specs[k], ...(changes[k] ?? {}) });
    return {
      affiliates: [{ id: ids.affiliate, name: `Orch affiliate ${tag}`, status: 'active', dupe_check: true }],
      schools: Object.entries(schools).map(([key, id]) => ({ id, name: `School ${key} ${tag}`, logo_url: null })),
      partners: Object.entries(partners).map(([key, id]) => ({
        id,
        name: partnerName(key),
        adapter: 'sandbox',
        base_url: `http://127.0.0.1:4100/partners/${key}`,
        timeout_ms: 5000,
      })),
      offers: keys.map((k) => {
        const s = spec(k);
        const common = {
          offer_type: s.offerType ?? 'shared',
          status: s.status ?? 'active',
          priority: s.priority ?? 0,
          result_ttl_seconds: s.resultTtlSeconds ?? 900,
          duplicate_window_days: s.duplicateWindowDays ?? 30,
          eligibility: s.eligibility ?? {},
          caps: caps(s.caps),
        };
        return s.partner
          ? partnerOffer(offers[k], schools[s.school], offerName(k), partners[s.partner], externalId(k), {
              ...common,
              tcpa_text: `Offer ${k} consent.`,
            })
          : catalogOffer(offers[k], schools[s.school], offerName(k), {
              ...common,
              source: 'own',
              price: 45,
              tcpa_text: `I agree that ${offerName(k)} may contact me.`,
              programs: s.programs ?? [{ value: 'gen', label: 'General Studies' }],
              form_fields: [],
              delivery: { adapter: 'sandbox', url: `http://127.0.0.1:4100/schools/${k}/leads?outcome=accept` },
            });
      }),
      campaigns: [
        campaign(
          ids.campaign,
          ids.affiliate,
          `Orch campaign ${tag}`,
          keys.map((k) => {
            const s = spec(k);
            return { offer_id: offers[k], ...(s.payout != null ? { payout: s.payout } : {}), caps: caps(s.campaignCaps) };
          }),
        ),
      ],
    };
  };
  await applyMediumCatalog(ds, catalog());
  ids.apiKey = await mediumApiKey(ds, ids.affiliate);
  const byId = new Map(keys.map((k) => [offers[k], k]));
  return {
    ids,
    specs,
    catalog,
    change: (changes) => applyMediumCatalog(ds, catalog(changes)),
    externalId,
    offerName,
    schoolName,
    partnerName,
    keyOf: (offerId) => {
      const k = byId.get(offerId);
      if (!k) throw new Error(`offer ${offerId} is not of this world`);
      return k;
    },
  };
}

/** The use cases with their real dependencies, as the search-orchestrator's module builds them. */
export function orchestrator(ds: DataSource, redis: Redis) {
  const config = mediumConfig('search-orchestrator');
  const catalog = new CampaignCatalog(ds, config);
  const ledger = new SaleLedger(ds);
  const searches = new SearchRepository(ds);
  const state = new SearchStatePublisher(redis, searches);
  return {
    config,
    catalog,
    ledger,
    searches,
    state,
    start: new StartSearch(catalog, ledger, searches, state, config),
    merge: new MergePartnerAnswer(catalog, searches, ledger, state, config),
  };
}

/** A fresh person (their own duplicate keys): Texas, ZIP 75001, associate degree, 30 years old. */
export function person(): Lead {
  const tag = randomUUID().slice(0, 8);
  return {
    personal: {
      first_name: 'Ada',
      // Letters only: a last name normalizes to a-z, so digits would vanish and names could collide.
      last_name: `Name${tag.replace(/\d/g, (d) => 'ghijklmnop'[Number(d)])}`,
      email: `p.${tag}@example.com`,
      phone: `512${String(randomInt(10_000_000)).padStart(7, '0')}`,
      date_of_birth: '1995-04-12',
    },
    address: { state: 'TX', zip_code: '75001' },
    education: { education_level: 'associate', high_school_graduation_year: '2013' },
  };
}

/** The gateway's search request for the world's campaign: requested now, the gateway waiting 3 s. */
export function searchRequest<K extends string>(
  w: World<K>,
  lead: Lead,
  o: { isTest?: boolean; searchId?: string; requestedAt?: Date; replyBy?: Date } = {},
): SearchRequestedV1 {
  const requestedAt = o.requestedAt ?? new Date();
  return {
    searchId: o.searchId ?? randomUUID(),
    affiliateId: w.ids.affiliate,
    campaignId: w.ids.campaign,
    apiKeyId: w.ids.apiKey,
    isTest: o.isTest ?? false,
    lead,
    tracking: { subid: 'medium', ip_address: '73.12.44.10' },
    consumerIp: '73.12.44.10',
    ipSource: 'consumer',
    tcpaConsent: true,
    formCertUrl: null,
    universalLeadCert: null,
    requestedAt: requestedAt.toISOString(),
    replyBy: (o.replyBy ?? new Date(Date.now() + 3000)).toISOString(),
  };
}

/** A partner's result for one of the world's partner offers, as partner-adapter maps it. */
export function partnerResult<K extends string>(w: World<K>, key: K, extra: Partial<PartnerOfferResult> = {}): PartnerOfferResult {
  return {
    offerId: w.ids.offers[key],
    externalId: w.externalId(key),
    partnerResultId: `pr-${key}-${randomUUID().slice(0, 8)}`,
    programs: [{ value: `prog-${key}`, label: `Program ${key}` }],
    formFields: [{ name: 'best_time', label: 'Best time to call', type: 'text', required: false }],
    tcpaText: `Partner consent for ${key}.`,
    school: { name: `Partner's name of ${key}`, logoUrl: null },
    expiresInSeconds: 600,
    ...extra,
  };
}

type AnswerOptions = Partial<Pick<PartnerAnswer, 'outcome' | 'latencyMs' | 'detail'>>;

/** One partner network's answer, as partner-adapter puts it in a message. */
export function oneAnswer<K extends string>(
  w: World<K>,
  partnerKey: string,
  results: PartnerOfferResult[],
  o: AnswerOptions = {},
): PartnerAnswer {
  return {
    partnerId: w.ids.partners[partnerKey],
    outcome: o.outcome ?? 'answered',
    latencyMs: o.latencyMs ?? 812.4,
    results,
    ...(o.detail ? { detail: o.detail } : {}),
  };
}

/** partner-adapter's message with the answers of several partner networks of one search that ended together. */
export function partnerAnswers<K extends string>(w: World<K>, searchId: string, answers: PartnerAnswer[]): PartnerSearchAnsweredV2 {
  return { searchId, campaignId: w.ids.campaign, answers };
}

/** partner-adapter's message with the answer of one partner network for one search. */
export function partnerAnswer<K extends string>(
  w: World<K>,
  searchId: string,
  partnerKey: string,
  results: PartnerOfferResult[],
  o: AnswerOptions = {},
): PartnerSearchAnsweredV2 {
  return partnerAnswers(w, searchId, [oneAnswer(w, partnerKey, results, o)]);
}

/** The partner calls a start asks for, each with the request's search fields and its own view of the lead: the one request message, seen per partner. */
export function partnerCallsOf(started: { partnerRequest: PartnerSearchRequestedV2 | null }) {
  return (started.partnerRequest?.partners ?? []).map(({ partner, offers, lead, tracking }) => {
    const { partners: _all, ...search } = started.partnerRequest!;
    return { ...search, partner, offers, lead, tracking };
  });
}

/** The search answer's HTTP body as the affiliate reads it. */
export function answerOf(body: Buffer | null): SearchAnswer {
  if (!body) throw new Error('no answer body');
  return JSON.parse(body.toString('utf8')) as SearchAnswer;
}

export interface SearchRow {
  id: string;
  affiliate_id: string;
  campaign_id: string;
  api_key_id: string;
  is_test: boolean;
  lead: Lead;
  tracking: Record<string, string>;
  consumer_ip: string;
  created_at: Date;
  closes_at: Date;
  processing_done_at: Date | null;
  state_version: number;
  accepted_count: number;
  true_exclusive_accepted: boolean;
  offer_decisions: Record<string, { shown: boolean; reason?: string; detail?: string; result_id?: string; partner?: string }>;
  result_order: string[];
  person_keys: DedupeKey[] | null;
}

export async function searchRow(ds: DataSource, searchId: string): Promise<SearchRow | undefined> {
  const rows: SearchRow[] = await ds.query(
    `SELECT id, affiliate_id, campaign_id, api_key_id, is_test, lead, tracking, consumer_ip, created_at, closes_at, processing_done_at,
            state_version::int AS state_version, accepted_count, true_exclusive_accepted, ${OFFER_DECISIONS('s')} AS offer_decisions,
            result_order::text[] AS result_order, person_keys
       FROM searches s WHERE id = $1`,
    [searchId],
  );
  return rows[0];
}

export interface ResultRow {
  id: string;
  offer_id: string;
  campaign_id: string;
  entry: Record<string, unknown> & { svc_result_id: string; offer: { id: string } };
  partner_data: { partnerId: string; partnerResultId: string; externalId: string } | null;
  expires_at: Date;
}

/** The search's result rows, by id. */
export async function resultRows(ds: DataSource, searchId: string): Promise<Map<string, ResultRow>> {
  const rows: ResultRow[] = await ds.query(
    `SELECT id, offer_id, campaign_id, entry, partner_data, expires_at FROM results WHERE search_id = $1`,
    [searchId],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export interface CallRow {
  partner_id: string;
  offer_ids: string[];
  status: string;
  answered_at: Date | null;
  latency_ms: number | null;
  result_count: number | null;
  detail: string | null;
}

/** The search's partner calls, by partner id. */
export async function callRows(ds: DataSource, searchId: string): Promise<Map<string, CallRow>> {
  const rows: CallRow[] = await ds.query(
    `SELECT partner_id, offer_ids::text[] AS offer_ids, status, answered_at, latency_ms, result_count, detail
       FROM search_partner_calls WHERE search_id = $1`,
    [searchId],
  );
  return new Map(rows.map((r) => [r.partner_id, r]));
}

export interface RedisSearch {
  v: number;
  meta: SearchMeta;
  entries: Map<string, Record<string, unknown> & { svc_result_id: string; offer: { id: string } }>;
  ttl: number;
}

/** The hash `search:<id>` as polls read it (meta, v, r:<result id>); undefined when Redis has none. */
export async function redisSearch(redis: Redis, searchId: string): Promise<RedisSearch | undefined> {
  const key = searchStateKey(searchId);
  const fields = await redis.hgetall(key);
  if (!fields.meta) return undefined;
  const entries: RedisSearch['entries'] = new Map();
  for (const [f, v] of Object.entries(fields)) if (f.startsWith('r:')) entries.set(f.slice(2), JSON.parse(v));
  return { v: Number(fields.v), meta: JSON.parse(fields.meta) as SearchMeta, entries, ttl: await redis.ttl(key) };
}

/** The slot an offer's cap counts in at `at` (libs/domain caps): the offer's own cap, or this campaign's cap on it. */
export function capSlot(offerId: string, campaignId: string | null, period: CapSlot['period'], at: Date, timezone = CAP_TZ): CapSlot {
  return { scope: capScope(offerId, campaignId), period, periodStart: capPeriodStart(period, timezone, at) };
}

/** Sales already counted in a cap slot (what reservations would have taken). */
export async function useCap(ds: DataSource, slot: CapSlot, used: number): Promise<void> {
  await ds.query(
    `INSERT INTO cap_usage (scope, period, period_start, used) VALUES ($1, $2, $3, $4)
     ON CONFLICT (scope, period, period_start) DO UPDATE SET used = EXCLUDED.used`,
    [slot.scope, slot.period, slot.periodStart.toISOString(), used],
  );
}

/**
 * What an accepted live sale of the person to an offer leaves behind (as in
 * dupe-check.int-spec.ts): a direct post's lead row and one `dedupe_keys` row
 * per person key, accepted `ago` (a PostgreSQL interval) before now.
 */
export async function soldToPerson<K extends string>(ds: DataSource, w: World<K>, lead: Lead, key: K, ago: string): Promise<void> {
  const leadId = randomUUID();
  const offerId = w.ids.offers[key];
  await ds.query(
    `INSERT INTO leads (id, kind, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, lead_group_id)
     VALUES ($1, 'direct_post', $2, $3, $4, $5, '{}', '73.12.44.10', 'accepted', 'ACCEPTED', $1)`,
    [leadId, w.ids.affiliate, w.ids.campaign, offerId, w.ids.apiKey],
  );
  for (const k of leadDedupeKeys(TEST_PERSON_KEY_SECRET, lead)) {
    await ds.query(
      `INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() - $7::interval)`,
      [leadId, k.type, k.hash, offerId, w.ids.schools[w.specs[key].school], w.ids.affiliate, ago],
    );
  }
}

/**
 * A submit of a search's result, sold and accepted as the reservation
 * (SaleLedger.writeSale: the lead, the sale in the search's lead group) and
 * the buyer's acceptance (SaleLedger.settle: the sale accepted, the search's
 * counters and state version) leave it.
 */
export async function acceptedSaleOnSearch<K extends string>(
  ds: DataSource,
  w: World<K>,
  searchId: string,
  resultId: string,
  key: K,
  lead: Lead,
): Promise<void> {
  const leadId = randomUUID();
  const offerId = w.ids.offers[key];
  const offerType = w.specs[key].offerType ?? 'shared';
  await ds.query(
    `INSERT INTO leads (id, kind, search_id, result_id, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, lead_group_id, decided_at, decided_by)
     VALUES ($1, 'result_submit', $2, $3, $4, $5, $6, $7, $8, '73.12.44.10', 'accepted', 'ACCEPTED', $2, now(), 'buyer')`,
    [leadId, searchId, resultId, w.ids.affiliate, w.ids.campaign, offerId, w.ids.apiKey, JSON.stringify(lead)],
  );
  await ds.query(
    `INSERT INTO sales (lead_id, search_id, lead_group_id, offer_id, school_id, campaign_id, affiliate_id, offer_type, payout, price, status)
     VALUES ($1, $2, $2, $3, $4, $5, $6, $7, 20, 45, 'accepted')`,
    [leadId, searchId, offerId, w.ids.schools[w.specs[key].school], w.ids.campaign, w.ids.affiliate, offerType],
  );
  await ds.query(
    `UPDATE searches SET accepted_count = accepted_count + 1, true_exclusive_accepted = true_exclusive_accepted OR $2,
                         state_version = state_version + 1, submitted_at = COALESCE(submitted_at, now())
      WHERE id = $1`,
    [searchId, offerType === 'true_exclusive'],
  );
}

/** Offer ids of an answer's or a list's entries, in order. */
export const offerIdsOf = (entries: ReadonlyArray<{ offer: { id: string } }>): string[] => entries.map((e) => e.offer.id);
