import { randomUUID } from 'node:crypto';
import { CONSENT_RECORD_FIELDS, contactValuesOf, holdsPerson, Lead, OptOutKey, optOutRecord, PersonKeySecret } from '@lr/domain';
import { KEPT_DAY, LEGACY_DAY, OptOuts, PartitionStore, PersonErasure } from '@lr/persistence';
import { erasedLead, erasedSearch, EvidenceOutcome } from './erase-records';

/** The search states of Redis (the hot copies polls read), by search id. */
export interface SearchStates {
  /** Deletes the states of these searches (a dry run: counts them); answers how many there were. */
  forget(searchIds: readonly string[], dryRun: boolean): Promise<number>;
}

export interface DeletePersonDeps {
  erasure: PersonErasure;
  partitions: PartitionStore;
  optOuts: OptOuts;
  states: SearchStates;
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
  for (const f of found) {
    const done = await deps.erasure.eraseSearch(
      f.id,
      f.day,
      (s) => (holdsPerson(req.secret, s.lead, keys) ? erasedSearch(s, valuesWith(s.lead), req.now) : null),
      req.dryRun,
    );
    if (!done) continue;
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
  deps.onProgress?.(places, places);

  const leads: DeletionReport['leads'] = { erased: 0, ids: [], deliveryAttemptsMasked: 0, receiptsMasked: 0, returnNotesMasked: 0 };
  const consentEvidence: DeletionReport['consentEvidence'] = { kept: 0, keptFields: CONSENT_RECORD_FIELDS, ipErased: 0 };
  for (const id of [...leadIds].sort()) {
    const outcome: { evidence: EvidenceOutcome } = { evidence: 'none' };
    const done = await deps.erasure.eraseLead(
      id,
      (l) => {
        if (!holdsPerson(req.secret, l.lead, keys)) return null;
        const e = erasedLead(l, valuesWith(l.lead));
        outcome.evidence = e.evidence;
        return e.erased;
      },
      req.dryRun,
    );
    if (!done) continue;
    leads.erased++;
    leads.ids.push(id);
    leads.deliveryAttemptsMasked += done.erased.attempts.length;
    if (done.erased.receipt !== undefined) leads.receiptsMasked++;
    if (done.erased.returnNote !== undefined) leads.returnNotesMasked++;
    if (outcome.evidence === 'kept') consentEvidence.kept++;
    if (outcome.evidence === 'ip-erased') consentEvidence.ipErased++;
  }

  return {
    dryRun: req.dryRun,
    keyTypes: keys.map((k) => k.type),
    request,
    searches,
    leads,
    consentEvidence,
    redisKeys,
    redisError,
    scanned: { searchPartitions: days.length, searches: searchesScanned, leads: leadsScanned },
    tookMs: Date.now() - started,
  };
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
