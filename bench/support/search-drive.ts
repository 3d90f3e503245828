import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ResultEntry } from '../../libs/contracts/src';
import { RunningProcess, startProcess } from './app-process';
import { appEnv } from './bench-state';
import { Answer, keepAliveAgent, send } from './http-client';
import { OpenLoopResult, runOpenLoop } from './open-loop';

/** The parts of a search or poll answer the benches read. */
export const answerJson = (a: Answer) =>
  JSON.parse(a.body.toString('utf8')) as { svc_lead_id: string; processing_done: boolean; offers: ResultEntry[] };
const json = answerJson;

export interface SearchRun extends OpenLoopResult {
  avgOffers: number;
  avgAnswerBytes: number;
}

/** Searches at a fixed offered load (open loop); every search a different person. */
export async function searchLoad(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  body: (i: number) => unknown,
  load: { rate: number; warmupMs: number; durationMs: number },
): Promise<SearchRun> {
  let offers = 0;
  let bytes = 0;
  let answers = 0;
  const result = await runOpenLoop({
    baseUrl,
    ...load,
    call: (i) => ({ method: 'POST', path, headers, body: JSON.stringify(body(i)) }),
    onAnswer: (a) => {
      const parsed = json(a);
      answers++;
      offers += parsed.offers.length;
      bytes += a.body.length;
    },
  });
  return { ...result, avgOffers: Math.round((offers / answers) * 10) / 10, avgAnswerBytes: Math.round(bytes / answers) };
}

/** A single search; its result entries, or an error saying what the gateway answered. */
export async function firstSearch(gatewayUrl: string, auth: Record<string, string>, searchBody: unknown): Promise<ResultEntry[]> {
  const agent = keepAliveAgent(1);
  const answer = await send(
    agent,
    new URL(gatewayUrl),
    { method: 'POST', path: '/api/v1/engine/search', headers: auth, body: JSON.stringify(searchBody) },
    10_000,
  );
  agent.destroy();
  if (answer.status !== 200) throw new Error(`the first search answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 500)}`);
  return json(answer).offers;
}

/** A baseline server from the build (dist/bench/baselines/<name>.js), as a child process like the apps. */
export function startBaseline(
  name: 'search-baseline' | 'poll-baseline' | 'submit-baseline',
  extra: Record<string, string>,
): Promise<RunningProcess> {
  return startProcess({
    name,
    entry: join(__dirname, '..', 'baselines', `${name}.js`),
    // With BENCH_CPU_PROF_DIR set, baselines write a profile too (appEnv), to compare with the apps'.
    env: { ...appEnv(), ...extra },
    portVar: 'PORT',
    probePath: '/health/ready',
    probeLabel: 'ready',
  });
}

/** A search or poll answer as the benches read it. */
export type SearchAnswer = ReturnType<typeof json>;

export interface DoneSearchOptions<T> {
  /** Searches in flight at once (default 8): a closed loop, so the system's own pace sets the rate. */
  concurrency?: number;
  /** What to keep of each final answer (default: all of it); a large batch keeps less in memory this way. */
  keep?: (answer: SearchAnswer) => T;
}

/**
 * Makes `count` searches (`concurrency` at a time, so the system's own pace
 * sets the rate and none times out), then polls each until it is done
 * (partners answered). Returns the final answers (or what `keep` makes of
 * them), in the order made.
 */
export async function doneSearchAnswers(
  gatewayUrl: string,
  auth: Record<string, string>,
  body: (i: number) => unknown,
  count: number,
  options?: { concurrency?: number },
): Promise<SearchAnswer[]>;
export async function doneSearchAnswers<T>(
  gatewayUrl: string,
  auth: Record<string, string>,
  body: (i: number) => unknown,
  count: number,
  options: DoneSearchOptions<T> & { keep: (answer: SearchAnswer) => T },
): Promise<T[]>;
export async function doneSearchAnswers<T>(
  gatewayUrl: string,
  auth: Record<string, string>,
  body: (i: number) => unknown,
  count: number,
  options: DoneSearchOptions<T> = {},
): Promise<Array<T | SearchAnswer>> {
  const keep: (answer: SearchAnswer) => T | SearchAnswer = options.keep ?? ((a) => a);
  const concurrency = options.concurrency ?? 8;
  const done = new Map<string, T | SearchAnswer>();
  const ids: string[] = [];
  const agent = keepAliveAgent(concurrency);
  const base = new URL(gatewayUrl);
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (ids.length < count && failures < count) {
      const answer = await send(
        agent,
        base,
        { method: 'POST', path: '/api/v1/engine/search', headers: auth, body: JSON.stringify(body(next++)) },
        10_000,
      );
      if (answer.status !== 200) {
        failures++;
        continue;
      }
      const parsed = json(answer);
      ids.push(parsed.svc_lead_id);
      if (parsed.processing_done) done.set(parsed.svc_lead_id, keep(parsed));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  let open = ids.filter((id) => !done.has(id));
  for (let round = 0; open.length > 0 && round < 30; round++) {
    await sleep(500);
    const answers = await Promise.all(
      open.map((id) => send(agent, base, { method: 'GET', path: `/api/v1/engine/results/${id}`, headers: auth }, 10_000)),
    );
    answers.forEach((a, i) => {
      const parsed = json(a);
      if (parsed.processing_done) done.set(open[i], keep(parsed));
    });
    open = open.filter((id) => !done.has(id));
  }
  agent.destroy();
  if (open.length > 0) throw new Error(`${open.length} of ${ids.length} searches still not done`);
  return ids.map((id) => done.get(id)!);
}

/** The ids of `count` searches that are done. */
export async function doneSearches(
  gatewayUrl: string,
  auth: Record<string, string>,
  body: (i: number) => unknown,
  count: number,
): Promise<string[]> {
  return (await doneSearchAnswers(gatewayUrl, auth, body, count)).map((a) => a.svc_lead_id);
}
