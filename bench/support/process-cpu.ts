import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks (100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

/** A process's command name and CPU seconds (user + system) so far, from /proc/<pid>/stat; undefined where it is not there (ended, or no /proc). */
function statOf(pid: number): { comm: string; seconds: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
    const close = stat.lastIndexOf(')');
    const fields = stat
      .slice(close + 1)
      .trim()
      .split(' ');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used so far; undefined where /proc is not there. */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : statOf(pid)?.seconds;
}

/**
 * Runs `work` and returns its result with the CPU time the given processes
 * used meanwhile, per unit of work (`count(result)`), in microseconds.
 * A server's CPU per request is steadier than its throughput on a shared or
 * noisy machine, and it says where the gap to a baseline is.
 */
export async function withCpuPerUnit<T>(
  pids: Array<number | undefined>,
  work: () => Promise<T>,
  count: (result: T) => number,
): Promise<{ result: T; cpuUsPerUnit?: number }> {
  const before = pids.map(cpuSecondsOf);
  const result = await work();
  const after = pids.map(cpuSecondsOf);
  if (before.some((b) => b === undefined) || after.some((a) => a === undefined)) return { result };
  const seconds = after.reduce<number>((sum, a, i) => sum + a! - before[i]!, 0);
  const units = count(result);
  return { result, cpuUsPerUnit: units > 0 ? Math.round((seconds * 1e6) / units) : undefined };
}

/**
 * CPU seconds of every process on the machine so far, summed by group: a
 * process in `named` (pid -> name) counts under its name, any other under its
 * command (postgres, beam.smp for RabbitMQ, redis-server, node, ...).
 * Processes that start or end between two readings count only for what they
 * used while both saw them.
 */
export function machineCpuByProcess(named: Map<number, string>): Map<number, { group: string; seconds: number }> {
  const out = new Map<number, { group: string; seconds: number }>();
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return out;
  }
  for (const e of entries) {
    const pid = Number(e);
    const stat = statOf(pid);
    if (stat) out.set(pid, { group: named.get(pid) ?? stat.comm, seconds: stat.seconds });
  }
  return out;
}

/** Runs `work`; answers the machine's CPU used meanwhile per unit of work, in ms, by group (largest first), with the total. */
export async function withMachineCpuPerUnit<T>(
  named: Map<number, string>,
  work: () => Promise<T>,
  count: (result: T) => number,
): Promise<{ result: T; msPerUnit: Array<{ group: string; ms: number }> }> {
  const before = machineCpuByProcess(named);
  const result = await work();
  const after = machineCpuByProcess(named);
  const units = count(result);
  const groups = new Map<string, number>();
  for (const [pid, a] of after) {
    const used = a.seconds - (before.get(pid)?.seconds ?? 0);
    if (used > 0) groups.set(a.group, (groups.get(a.group) ?? 0) + used);
  }
  const msPerUnit = [...groups]
    .map(([group, s]) => ({ group, ms: units > 0 ? Math.round((s * 1e4) / units) / 10 : NaN }))
    .sort((x, y) => y.ms - x.ms);
  const total = msPerUnit.reduce((sum, g) => sum + g.ms, 0);
  return { result, msPerUnit: [{ group: 'machine', ms: Math.round(total * 10) / 10 }, ...msPerUnit] };
}

/** The ms per unit of the named groups together (withMachineCpuPerUnit's breakdown), to 0.1 ms. */
export function groupMs(groups: Array<{ group: string; ms: number }>, names: readonly string[]): number {
  return Math.round(groups.filter((g) => names.includes(g.group)).reduce((sum, g) => sum + g.ms, 0) * 10) / 10;
}

/** withMachineCpuPerUnit's breakdown as one line, `machine 40.1, postgres 12.3, …`, groups under 0.1 ms left out. */
export function byProcessLine(groups: Array<{ group: string; ms: number }>): string {
  return groups
    .filter((g) => g.ms >= 0.1)
    .map((g) => `${g.group} ${g.ms}`)
    .join(', ');
}
