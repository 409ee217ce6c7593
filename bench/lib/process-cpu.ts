import { readFileSync, readdirSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces), or null when gone. */
function statFields(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The parent pid of a process (Linux /proc). */
export function parentPid(pid: number): number {
  const f = statFields(pid);
  if (!f) throw new Error(`process ${pid} is gone`);
  return Number(f[1]);
}

/**
 * CPU time (user + system, ms) a process has used, with its live children and the children it has
 * waited for (PostgreSQL's backends and autovacuum workers under the postmaster): on a machine other
 * people load, the CPU a step costs moves far less than its wall time. Linux only.
 */
export function processTreeCpuMs(pid: number): number {
  const own = statFields(pid);
  if (!own) return 0;
  // utime, stime, cutime, cstime are fields 14-17 of stat, 11-14 here.
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(Number(name));
    if (f && Number(f[1]) === pid) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks * TICK_MS;
}
