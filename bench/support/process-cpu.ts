import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks (100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far; undefined where /proc is not there. */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its closing ')'.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop()!.trim().split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` and returns its result with the CPU time the given processes
 * used meanwhile, per unit of work (`count(result)`), in microseconds.
 * A server's CPU per request is steadier than its throughput on a shared or
 * noisy machine, and it says where the gap to a baseline is.
 */
export async function withCpuPerUnit<T>(pids: Array<number | undefined>, work: () => Promise<T>, count: (result: T) => number): Promise<{ result: T; cpuUsPerUnit?: number }> {
  const before = pids.map(cpuSecondsOf);
  const result = await work();
  const after = pids.map(cpuSecondsOf);
  if (before.some((b) => b === undefined) || after.some((a) => a === undefined)) return { result };
  const seconds = after.reduce<number>((sum, a, i) => sum + a! - before[i]!, 0);
  const units = count(result);
  return { result, cpuUsPerUnit: units > 0 ? Math.round((seconds * 1e6) / units) : undefined };
}
