import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { hashOf, leadDedupeKeys } from '../libs/domain/src';
import { addDays, dayOf, daySuffix } from '../libs/persistence/src/partitions/partition-days';
import {
  type BatchModel,
  type HistoryModel,
  modelTextParams,
  SyntheticHistory,
} from '../libs/persistence/src/repositories/synthetic-history.repository';
import { BENCH_STATE } from './support/bench-state';
import { BENCH_KEY_SECRET } from './support/bench-state';

/**
 * Historical searches for the storage bench (bench/results/performance-history.md, "Storage"):
 * `searches` finished searches of the campaign of a model search, spread
 * evenly over the `days` x 24 h before now, stored the way the system stores
 * them (docs/storage.md), generated in PostgreSQL in batches (no row crosses
 * the wire):
 * - each search's id is a UUIDv7 of its own time, so it lands in the day
 *   partition `lr_id_day(id)` names (past days' partitions are created here,
 *   with the partition keeper's createDayPartitions);
 * - its results are in its row (`result_order` of new result ids, the model's
 *   `result_templates`, expiries as far after its time as the model's), and
 *   the templates it names are in its day's partition: the model's templates
 *   copied once into each day (what the system writes on a day's first search);
 * - its lead is the model's with a person of its own (email, phone, last
 *   name), `person_keys` hashed as libs/domain hashes them (checked on the
 *   first batch), `offer_decisions` and `result_partner` the model's with its
 *   own result ids, its partner calls the model's, at its own time;
 * - one search in `submitEvery` (33: about 3 %) has a submit, sold and
 *   accepted, on one of its own-offer results: the search marked submitted,
 *   a `leads` row, its `sales` row (with its cap slots, counted in
 *   `cap_usage`), `consent_evidence`, three `dedupe_keys` rows and a delivery
 *   attempt, as a sold submit leaves them.
 * The statements are SyntheticHistory's (libs/persistence, a repository
 * only this bench uses), declared and typed as every repository's.
 * Batches go to `jobs` connections at once (each statement runs on one
 * core). Then ANALYZE, as autovacuum would after so many new rows, and a
 * CHECKPOINT, so the bulk's dirty pages are written now and not during
 * whatever is measured next.
 *
 * The model is a finished, unsubmitted search of the database (by default the
 * newest one with the most results): run searches of the bench campaign first
 * (`npm run bench:storage` does). History person i has the email
 * `hist.<i>@example.com` (historyPerson), so a bench can ask about them.
 *
 * CLI: node dist/bench/generate-history.js --searches 1000000 --days 30
 *      [--batch 50000] [--jobs 2] [--submit-every 33] [--model <search id>] [--database-url <url>]
 * (default database: the bench's, leadrouter_bench).
 */
export interface HistoryOptions {
  searches: number;
  days: number;
  /** Searches per statement (each its own transaction). */
  batch?: number;
  /** One search in this many has a submit (33: about 3 %). */
  submitEvery?: number;
  /** The search to copy; default the newest finished unsubmitted search with the most results. */
  modelSearchId?: string;
  /** The end of the history (exclusive); default now. */
  until?: Date;
  /** Connections generating batches at once (default: 2, or 1 on a single core). */
  jobs?: number;
}

export interface HistoryResult {
  searches: number;
  submits: number;
  days: number;
  /** The history's first and last day (UTC), `YYYY-MM-DD`; the first and the last one are partial days. */
  firstDay: string;
  lastDay: string;
  partitionsCreated: number;
  templatesCopied: number;
  modelSearchId: string;
  resultsPerSearch: number;
  /** Generation, ANALYZE and CHECKPOINT, ms. */
  ms: { generate: number; analyze: number; checkpoint: number; total: number };
  databaseBytes: { before: number; after: number };
}

export const DEFAULT_BATCH = 50_000;
export const DEFAULT_SUBMIT_EVERY = 33;
export const DEFAULT_JOBS = Math.min(2, cpus().length);

/** History person i, as the generator writes them (the lead's other fields are the model's). */
export function historyPerson(i: number): { email: string; phone: string; lastName: string } {
  return {
    email: `hist.${i}@example.com`,
    phone: `6${String(i).padStart(9, '0')}`,
    lastName: `Hist${String(i).replace(/\d/g, (d) => 'abcdefghij'[Number(d)])}`,
  };
}

/** A result a history submit may pick: an own offer's result of the model, with what its submit and its sale write. */
interface SubmitChoice {
  i: number;
  pos: number;
  offer_id: string;
  school_id: string;
  offer_type: string;
  price: string | null;
  payout: string | null;
  program_id: string | null;
  answers: Record<string, string>;
  tcpa_text: string | null;
}

/** The first option of every question and the first program: what the submit bench answers (every bench lead qualifies). */
function submitFields(body: {
  programs?: Array<{ value: string; payout?: number }>;
  form_fields?: Array<{ name: string; options?: Array<{ value: string }> }>;
  payout?: number;
}) {
  const answers: Record<string, string> = {};
  for (const f of body.form_fields ?? []) answers[f.name] = f.options?.[0]?.value ?? '1';
  const program = body.programs?.[0];
  const payout = program?.payout ?? body.payout;
  return { program_id: program?.value ?? null, answers, payout: payout === undefined ? null : String(payout) };
}

async function modelSearch(history: SyntheticHistory, id: string | undefined): Promise<HistoryModel> {
  const m = await history.modelSearch(id);
  if (!m) {
    throw new Error(
      id
        ? `search ${id} is not a finished, unsubmitted search with results`
        : 'no finished, unsubmitted search with results to copy: run searches of the bench campaign first (npm run bench:storage does)',
    );
  }
  return m;
}

async function submitChoices(history: SyntheticHistory, m: HistoryModel): Promise<SubmitChoice[]> {
  const rows = await history.submitChoices(m);
  if (rows.length === 0) throw new Error(`the model search ${m.id} shows no own offer: history submits need one`);
  return rows.map((r, i) => {
    const body = JSON.parse(r.body) as Parameters<typeof submitFields>[0] & { offer?: { tcpa_text?: string | null } };
    return {
      i,
      pos: r.pos,
      offer_id: r.offerId,
      school_id: r.schoolId,
      offer_type: r.offerType,
      price: r.price,
      ...submitFields(body),
      tcpa_text: body.offer?.tcpa_text ?? r.tcpaText,
    };
  });
}

/**
 * The generated rows read back as the system reads them: the search's person
 * keys are what libs/domain makes of its lead, its results are rebuilt whole
 * by the `results` view, and its submit's dedupe keys are its person keys.
 */
async function checkGenerated(history: SyntheticHistory, searchId: string, results: number): Promise<void> {
  const s = await history.generatedSearch(searchId);
  if (!s?.inItsDay) throw new Error(`generated search ${searchId} is not in its id's day partition`);
  const expected = leadDedupeKeys(BENCH_KEY_SECRET, s.lead)
    .map((k) => `${k.type}:${k.hash}`)
    .sort();
  const stored = s.personKeys.map((k) => `${k.type}:${k.hash}`).sort();
  if (JSON.stringify(stored) !== JSON.stringify(expected))
    throw new Error(`generated person keys differ from libs/domain's: ${stored.join(', ')} vs ${expected.join(', ')}`);
  const keys = (await history.generatedKeys(searchId)).sort();
  if (JSON.stringify(keys) !== JSON.stringify(expected))
    throw new Error(`a generated submit's dedupe keys differ from its search's person keys`);
  const entries = await history.generatedEntries(searchId);
  if (entries !== results)
    throw new Error(`the results view rebuilds ${entries} of the ${results} results of generated search ${searchId}`);
}

/** Generates the history (see the top of this file) on `databaseUrl`; `log` gets a progress line per batch. */
export async function generateHistory(databaseUrl: string, o: HistoryOptions, log: (msg: string) => void): Promise<HistoryResult> {
  const batch = o.batch ?? DEFAULT_BATCH;
  const submitEvery = o.submitEvery ?? DEFAULT_SUBMIT_EVERY;
  const jobs = o.jobs ?? DEFAULT_JOBS;
  if (!Number.isInteger(o.searches) || o.searches < 1) throw new Error(`searches must be a positive integer, got ${o.searches}`);
  if (!Number.isInteger(o.days) || o.days < 1) throw new Error(`days must be a positive integer, got ${o.days}`);
  if (!Number.isInteger(batch) || batch < 1) throw new Error(`batch must be a positive integer, got ${batch}`);
  if (!Number.isInteger(submitEvery) || submitEvery < 1) throw new Error(`submitEvery must be a positive integer, got ${submitEvery}`);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`jobs must be a positive integer, got ${jobs}`);
  const started = performance.now();
  const history = await SyntheticHistory.open(databaseUrl, BENCH_KEY_SECRET);
  try {
    const before = await history.databaseBytes();

    const m = await modelSearch(history, o.modelSearchId);
    const choices = await submitChoices(history, m);
    const zip = m.lead.address?.zip_code;
    const dob = m.lead.personal?.date_of_birth;
    const zipHash = zip === undefined ? undefined : hashOf('zip', zip);
    const dobHash = dob === undefined ? undefined : hashOf('dob', dob);
    if (!zipHash || !dobHash)
      throw new Error(`the model search's lead has no usable ZIP and date of birth: its person keys would not be three`);

    const until = o.until ?? new Date();
    const from = new Date(until.getTime() - o.days * 86_400_000);
    const stepMs = (until.getTime() - from.getTime()) / o.searches;
    const firstDay = dayOf(from);
    const lastDay = dayOf(new Date(until.getTime() - 1));
    const days: string[] = [];
    for (let d = firstDay; d <= lastDay; d = addDays(d, 1)) days.push(d);

    // The day partitions of the history (today's and the coming days' exist: the services made them).
    const partitionsCreated = await history.createDays(days, daySuffix);
    // The model's templates, once per day: what a day's first search of the campaign writes.
    const templatesCopied = await history.copyTemplates(m.day, [...new Set(m.resultTemplates)], days);
    log(
      `history: ${o.searches.toLocaleString('en-US')} searches over ${o.days} days (${firstDay} to ${lastDay}), ${days.length} day partitions ` +
        `(${partitionsCreated} tables created), ${templatesCopied} templates copied; model ${m.id} (${m.resultOrder.length} results), ` +
        `a submit on one search in ${submitEvery}`,
    );

    const model: BatchModel = {
      from,
      stepMs,
      submitEvery,
      modelId: m.id,
      modelDay: m.day,
      results: m.resultOrder.length,
      expiresMs: m.expiresMs,
      choicesJson: JSON.stringify(choices),
      zipHash,
      dobHash,
      leadJson: JSON.stringify(m.lead),
      templates: m.resultTemplates,
      decisions: modelTextParams(m.offerDecisions, m.resultOrder),
      partner: m.resultPartner === null ? null : modelTextParams(m.resultPartner, m.resultOrder),
    };
    const generateStarted = performance.now();
    let next = 0;
    let done = 0;
    let submits = 0;
    let failed = false;
    // `jobs` connections take the batches in turn (PostgreSQL runs each statement on one core).
    const worker = async () => {
      const db = await SyntheticHistory.open(databaseUrl, BENCH_KEY_SECRET);
      try {
        while (!failed && next < o.searches) {
          const lo = next;
          next += batch;
          const hi = Math.min(o.searches, lo + batch) - 1;
          const r = await db.batch(lo, hi, model);
          if (lo === 0 && r.sample) await checkGenerated(db, r.sample, m.resultOrder.length);
          done += r.searches;
          submits += r.leads;
          const s = (performance.now() - generateStarted) / 1000;
          const rate = done / s;
          log(
            `history: ${done.toLocaleString('en-US')} / ${o.searches.toLocaleString('en-US')} searches, ${submits.toLocaleString('en-US')} submits, ` +
              `${s.toFixed(1)} s (${Math.round(rate).toLocaleString('en-US')}/s, about ${Math.round((o.searches - done) / rate)} s to go)`,
          );
        }
      } catch (e) {
        failed = true;
        throw e;
      } finally {
        await db.close();
      }
    };
    const outcomes = await Promise.allSettled(Array.from({ length: jobs }, worker));
    const failure = outcomes.find((x): x is PromiseRejectedResult => x.status === 'rejected');
    if (failure) throw failure.reason;
    const generateMs = performance.now() - generateStarted;
    let t = performance.now();
    await history.analyze();
    const analyzeMs = performance.now() - t;
    // The bulk's dirty pages written now, not by a checkpoint during whatever runs next.
    t = performance.now();
    await history.checkpoint();
    const checkpointMs = performance.now() - t;
    const after = await history.databaseBytes();
    return {
      searches: done,
      submits,
      days: o.days,
      firstDay,
      lastDay,
      partitionsCreated,
      templatesCopied,
      modelSearchId: m.id,
      resultsPerSearch: m.resultOrder.length,
      ms: {
        generate: Math.round(generateMs),
        analyze: Math.round(analyzeMs),
        checkpoint: Math.round(checkpointMs),
        total: Math.round(performance.now() - started),
      },
      databaseBytes: { before, after },
    };
  } finally {
    await history.close();
  }
}

async function cli(): Promise<void> {
  const { values } = parseArgs({
    options: {
      searches: { type: 'string', default: '1000000' },
      days: { type: 'string', default: '30' },
      batch: { type: 'string', default: String(DEFAULT_BATCH) },
      'submit-every': { type: 'string', default: String(DEFAULT_SUBMIT_EVERY) },
      jobs: { type: 'string', default: String(DEFAULT_JOBS) },
      model: { type: 'string' },
      'database-url': { type: 'string', default: BENCH_STATE.databaseUrl },
    },
    strict: true,
  });
  const log = (msg: string) => void process.stderr.write(`[history] ${msg}\n`);
  const r = await generateHistory(
    values['database-url']!,
    {
      searches: Number(values.searches),
      days: Number(values.days),
      batch: Number(values.batch),
      submitEvery: Number(values['submit-every']),
      jobs: Number(values.jobs),
      modelSearchId: values.model,
    },
    log,
  );
  const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
  process.stdout.write(
    `${r.searches} searches (${r.submits} with a submit) over ${r.days} days, ${r.firstDay} to ${r.lastDay}: generated in ${(r.ms.generate / 1000).toFixed(1)} s, ` +
      `ANALYZE ${(r.ms.analyze / 1000).toFixed(1)} s, CHECKPOINT ${(r.ms.checkpoint / 1000).toFixed(1)} s; database ${mb(r.databaseBytes.before)} MB -> ${mb(r.databaseBytes.after)} MB\n`,
  );
}

if (require.main === module) {
  cli().catch((e: unknown) => {
    process.stderr.write(`[history] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
