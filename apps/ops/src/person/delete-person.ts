import { randomUUID } from 'node:crypto';
import {
  CONSENT_RECORD_FIELDS,
  type ContactPart,
  contactValuesOf,
  holdsPerson,
  joinContact,
  Lead,
  OptOutKey,
  optOutRecord,
  PersonKeySecret,
  type SealedContact,
  type StoredContact,
} from '@lr/domain';
import { KEPT_DAY, LEGACY_DAY, OptOuts, PartitionStore, PersonErasure, SealedContacts, type SealedRecord } from '@lr/persistence';
import type { ContactOpener } from '../contact-opener';
import { erasedLead, erasedSearch, EvidenceOutcome } from './erase-records';

/**
 * The messages parked in the dead-letter queues: the sealed contact
 * documents their bodies hold. A message parked before its record was stored
 * (a submit whose checks failed) holds a data key no record names: only this
 * finds it.
 */
export interface ParkedMessages {
  sealed(): Promise<SealedContact[]>;
}

/** The search states of Redis (the hot copies polls read), by search id. */
export interface SearchStates {
  /** Deletes the states of these searches (a dry run: counts them); answers how many there were. */
  forget(searchIds: readonly string[], dryRun: boolean): Promise<number>;
}

/** The key store's side of a deletion: opens sealed contact data, and destroys data keys (ContactSealer). */
export interface DataKeyShredder extends ContactOpener {
  /** Destroys these data keys; answers how many existed. */
  destroy(keyIds: readonly string[]): Promise<number>;
}

export interface DeletePersonDeps {
  erasure: PersonErasure;
  /** The sealed contact documents of searches and leads (docs/security.md, Encryption at rest). */
  sealed: SealedContacts;
  keys: DataKeyShredder;
  partitions: PartitionStore;
  optOuts: OptOuts;
  states: SearchStates;
  /** Absent: the dead-letter queues are not searched (a caller without a broker). */
  parked?: ParkedMessages;
  /** Places searched so far (each search partition, then the leads) of all of them. */
  onProgress?: (done: number, total: number) => void;
}

export interface DeletePersonRequest {
  /** The person's keys (libs/domain opt-outs: the duplicate keys' email and phone hashes). */
  keys: OptOutKey[];
  /** The raw values the operator typed, if any: looked for in free text too. */
  typed: { emails: string[]; phones: string[] };
  /** The operator's reference (a ticket); never contact data. */
  reference: string | null;
  dryRun: boolean;
  now: Date;
  /** Whose delivery service relays the request's notices (this system's AMQP_PREFIX). */
  relay: string;
  /** The server secret the keys are made with: a lead's email and phone are keyed with it to compare. */
  secret: PersonKeySecret;
}

/** The deletion request as recorded: an opt-out of source `deletion` (the person's hashed suppression, buyers' revocation notices). */
export interface RequestReport {
  /** Null in a dry run that found none recorded. */
  id: string | null;
  receivedAt: string | null;
  /** Whether this run recorded it (false: recorded by an earlier run, or a dry run). */
  recordedNow: boolean;
  /** Keys newly suppressed, and revocation notices created for buyers of the person's leads, by this run. */
  suppressed: number;
  notices: number;
}

export interface DeletionReport {
  dryRun: boolean;
  keyTypes: string[];
  request: RequestReport;
  searches: { erased: number; live: number; test: number; ids: string[]; partnerCallsMasked: number };
  leads: { erased: number; ids: string[]; deliveryAttemptsMasked: number; receiptsMasked: number; returnNotesMasked: number };
  consentEvidence: { kept: number; keptFields: readonly string[]; ipErased: number };
  /**
   * Records whose sealed contact data was made unreadable by destroying its
   * data key (crypto-shredding): every copy, in rows, queued messages and
   * backups of the main database. A dry run counts those it would shred.
   */
  cryptoShredded: { searches: number; leads: number; deadLetters: number };
  /** Why the dead-letter queues could not be searched (null: they were, or none is configured). */
  deadLetterError: string | null;
  /** Null when Redis could not be reached (`redisError` says why). */
  redisKeys: number | null;
  redisError: string | null;
  scanned: { searchPartitions: number; searches: number; leads: number };
  tookMs: number;
}

/**
 * A consumer's deletion request (docs/deletion.md): first the request and
 * the person's suppression (so nothing of theirs is sold while their records
 * are erased, and buyers get revocation notices), then every search of theirs
 * in every partition, the Redis copies of those searches, then every lead of
 * theirs, each record erased in its own transaction. Safe to repeat: an
 * erased record holds no email or phone any more, so no later run finds it
 * the person's again, and the request is recorded once.
 */
export async function deletePerson(deps: DeletePersonDeps, req: DeletePersonRequest): Promise<DeletionReport> {
  const started = Date.now();
  const { keys } = req;
  const request = await recordRequest(deps, req);

  const days = (await deps.partitions.partitions()).filter((p) => p.table === 'searches').map((p) => partitionDay(p.day));
  const places = days.length + 1;
  deps.onProgress?.(0, places);
  const found: Array<{ id: string; day: string }> = [];
  let searchesScanned = 0;
  for (const [i, day] of days.entries()) {
    let after: string | null = null;
    do {
      const page = await deps.erasure.searchCandidates(day, keys, after);
      searchesScanned += page.rows.length;
      for (const c of page.rows) if (c.byKeys || holdsPerson(req.secret, personOf(c), keys)) found.push({ id: c.id, day });
      after = page.last;
    } while (after !== null);
    // Sealed searches without person keys (test searches): only their opened contact says whose they are.
    after = null;
    do {
      const page = await deps.sealed.keylessSearches(day, after, OPEN_PAGE);
      searchesScanned += page.rows.length;
      const opened = await deps.keys.tryOpenAll<ContactPart>(page.rows.map((r) => r.contact));
      page.rows.forEach((r, j) => {
        const part = opened[j];
        if (part && holdsPerson(req.secret, part.lead, keys)) found.push({ id: r.id, day });
      });
      after = page.last;
    } while (after !== null);
    deps.onProgress?.(i + 1, places);
  }

  // Before the rows: a run cut here finds these searches again (their contact data is still there), and deletes any state left.
  let redisKeys: number | null = null;
  let redisError: string | null = null;
  try {
    redisKeys = await deps.states.forget(
      found.map((f) => f.id),
      req.dryRun,
    );
  } catch (e) {
    redisError = (e as Error).message;
  }

  // The person's values as the records held them, to find them again in free text (a buyer's reason, a tracking value).
  const seen: Lead[] = [];
  const valuesWith = (lead: Lead) => {
    seen.push(lead);
    return contactValuesOf(seen, req.typed);
  };
  const searches: DeletionReport['searches'] = { erased: 0, live: 0, test: 0, ids: [], partnerCallsMasked: 0 };
  const sealedSearches = await openSealed(deps, await sealedSearchesOf(deps.sealed, found));
  const shredSearches: string[] = [];
  for (const f of found) {
    const sealed = sealedSearches.get(f.id);
    const done = await deps.erasure.eraseSearch(
      f.id,
      f.day,
      (s) => {
        const whole = wholeContact(s, sealed);
        if (!whole || !holdsPerson(req.secret, whole.lead, keys)) return null;
        const e = erasedSearch({ ...s, ...whole }, valuesWith(whole.lead), req.now);
        // A sealed record's IP stays sealed (an affiliate server's, which the erasure keeps, is not written out in the clear).
        return sealed ? { ...e, consumerIp: s.consumerIp } : e;
      },
      req.dryRun,
    );
    if (!done) continue;
    if (sealed?.part) shredSearches.push(sealed.contact.key);
    searches.erased++;
    searches.test += Number(done.record.isTest);
    searches.live = searches.erased - searches.test;
    searches.ids.push(f.id);
    searches.partnerCallsMasked += done.erased.partnerCalls.length;
  }

  const leadIds = new Set(
    await deps.erasure.leadCandidates(
      keys,
      found.map((f) => f.id),
    ),
  );
  let leadsScanned = leadIds.size;
  let after: string | null = null;
  do {
    const page = await deps.erasure.unledgeredLeads(after);
    leadsScanned += page.rows.length;
    for (const c of page.rows) if (holdsPerson(req.secret, personOf(c), keys)) leadIds.add(c.id);
    after = page.last;
  } while (after !== null);
  // A sealed lead's `lead` column holds no email or phone: found by its live dedupe keys, and the unledgered ones by opening them.
  const hashes = (type: string) => keys.filter((k) => k.type === type).map((k) => k.hash);
  for (const id of await deps.sealed.leadsByDedupeKeys(hashes('email'), hashes('phone'))) leadIds.add(id);
  after = null;
  do {
    const page = await deps.sealed.unledgeredLeads(after, OPEN_PAGE);
    leadsScanned += page.rows.length;
    const opened = await deps.keys.tryOpenAll<ContactPart>(page.rows.map((r) => r.contact));
    page.rows.forEach((r, j) => {
      const part = opened[j];
      if (part && holdsPerson(req.secret, part.lead, keys)) leadIds.add(r.id);
    });
    after = page.last;
  } while (after !== null);
  deps.onProgress?.(places, places);

  const leads: DeletionReport['leads'] = { erased: 0, ids: [], deliveryAttemptsMasked: 0, receiptsMasked: 0, returnNotesMasked: 0 };
  const consentEvidence: DeletionReport['consentEvidence'] = { kept: 0, keptFields: CONSENT_RECORD_FIELDS, ipErased: 0 };
  const sealedLeads = await openSealed(deps, await sealedLeadsOf(deps.sealed, [...leadIds]));
  const shredLeads: string[] = [];
  for (const id of [...leadIds].sort()) {
    const outcome: { evidence: EvidenceOutcome } = { evidence: 'none' };
    const sealed = sealedLeads.get(id);
    const done = await deps.erasure.eraseLead(
      id,
      (l) => {
        const whole = wholeContact(l, sealed);
        if (!whole || !holdsPerson(req.secret, whole.lead, keys)) return null;
        const e = erasedLead({ ...l, ...whole }, valuesWith(whole.lead));
        outcome.evidence = e.evidence;
        return sealed ? { ...e.erased, consumerIp: l.consumerIp } : e.erased;
      },
      req.dryRun,
    );
    if (!done) continue;
    if (sealed?.part) shredLeads.push(sealed.contact.key);
    leads.erased++;
    leads.ids.push(id);
    leads.deliveryAttemptsMasked += done.erased.attempts.length;
    if (done.erased.receipt !== undefined) leads.receiptsMasked++;
    if (done.erased.returnNote !== undefined) leads.returnNotesMasked++;
    if (outcome.evidence === 'kept') consentEvidence.kept++;
    if (outcome.evidence === 'ip-erased') consentEvidence.ipErased++;
  }

  // Messages of the person parked in the dead-letter queues whose data keys no record names.
  let shredParked: string[] = [];
  let deadLetterError: string | null = null;
  if (deps.parked) {
    try {
      const documents = await deps.parked.sealed();
      const parts = await deps.keys.tryOpenAll<ContactPart>(documents);
      const named = new Set([...shredSearches, ...shredLeads]);
      shredParked = [
        ...new Set(documents.filter((d, i) => parts[i] && holdsPerson(req.secret, parts[i]!.lead, keys)).map((d) => d.key)),
      ].filter((k) => !named.has(k));
    } catch (e) {
      deadLetterError = (e as Error).message;
    }
  }

  // Last, once the rows are erased: a run cut before this finds the records again and opens them to erase them again.
  const cryptoShredded = {
    searches: req.dryRun ? shredSearches.length : await destroyKeys(deps.keys, shredSearches),
    leads: req.dryRun ? shredLeads.length : await destroyKeys(deps.keys, shredLeads),
    deadLetters: req.dryRun ? shredParked.length : await destroyKeys(deps.keys, shredParked),
  };

  return {
    dryRun: req.dryRun,
    keyTypes: keys.map((k) => k.type),
    request,
    searches,
    leads,
    consentEvidence,
    cryptoShredded,
    deadLetterError,
    redisKeys,
    redisError,
    scanned: { searchPartitions: days.length, searches: searchesScanned, leads: leadsScanned },
    tookMs: Date.now() - started,
  };
}

/** Sealed records opened per statement, and data keys destroyed per statement. */
const OPEN_PAGE = 500;

/** A record's sealed document, opened (null part: its data key is gone). */
interface OpenedSealed {
  contact: SealedContact;
  part: ContactPart | null;
}

async function sealedSearchesOf(sealed: SealedContacts, found: ReadonlyArray<{ id: string; day: string }>): Promise<SealedRecord[]> {
  const byDay = new Map<string, string[]>();
  for (const f of found) byDay.set(f.day, [...(byDay.get(f.day) ?? []), f.id]);
  const out: SealedRecord[] = [];
  for (const [day, ids] of byDay) for (const batch of chunks(ids, OPEN_PAGE)) out.push(...(await sealed.ofSearches(day, batch)));
  return out;
}

async function sealedLeadsOf(sealed: SealedContacts, ids: readonly string[]): Promise<SealedRecord[]> {
  const out: SealedRecord[] = [];
  for (const batch of chunks(ids, OPEN_PAGE)) out.push(...(await sealed.ofLeads(batch)));
  return out;
}

async function openSealed(deps: DeletePersonDeps, records: readonly SealedRecord[]): Promise<Map<string, OpenedSealed>> {
  const out = new Map<string, OpenedSealed>();
  for (const batch of chunks(records, OPEN_PAGE)) {
    const parts = await deps.keys.tryOpenAll<ContactPart>(batch.map((r) => r.contact));
    batch.forEach((r, i) => out.set(r.id, { contact: r.contact, part: parts[i] }));
  }
  return out;
}

/**
 * A record's contact columns whole: a record stored before sealing as it is,
 * a sealed one with its sealed part opened; null when that part cannot be
 * opened any more (an earlier deletion destroyed its key).
 */
function wholeContact(stored: StoredContact, sealed: OpenedSealed | undefined): StoredContact | null {
  if (!sealed) return stored;
  return sealed.part ? joinContact(stored, sealed.part) : null;
}

async function destroyKeys(keys: DataKeyShredder, ids: readonly string[]): Promise<number> {
  let destroyed = 0;
  for (const batch of chunks(ids, OPEN_PAGE)) destroyed += await keys.destroy(batch);
  return destroyed;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The deletion request, recorded once: a deletion request recorded earlier
 * for the same keys stands (a second run, or a run after an interrupted one);
 * otherwise an opt-out of source `deletion` suppresses the person and creates
 * the revocation notices of the buyers that accepted their leads.
 */
async function recordRequest(deps: DeletePersonDeps, req: DeletePersonRequest): Promise<RequestReport> {
  const earlier = await deps.erasure.deletionRequest(req.keys);
  if (earlier) return { id: earlier.id, receivedAt: earlier.receivedAt.toISOString(), recordedNow: false, suppressed: 0, notices: 0 };
  if (req.dryRun) return { id: null, receivedAt: null, recordedNow: false, suppressed: 0, notices: 0 };
  const record = optOutRecord({
    id: randomUUID(),
    receivedAt: req.now,
    source: 'deletion',
    affiliateId: null,
    apiKeyId: null,
    reference: req.reference,
    keys: req.keys,
    actor: 'operator',
    relay: req.relay,
  });
  const recorded = await deps.optOuts.record(record);
  return {
    id: record.id,
    receivedAt: req.now.toISOString(),
    recordedNow: true,
    suppressed: recorded.suppressed,
    notices: recorded.notices,
  };
}

/** A search partition's day as its rows carry it (`kept` and `legacy` have days of their own). */
function partitionDay(day: string): string {
  return day === 'kept' ? KEPT_DAY : day === 'legacy' ? LEGACY_DAY : day;
}

function personOf(c: { email: string | null; phone: string | null }): Lead {
  return { personal: { ...(c.email === null ? {} : { email: c.email }), ...(c.phone === null ? {} : { phone: c.phone }) } };
}
