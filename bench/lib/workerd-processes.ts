/** The workerd processes a `wrangler dev` runs, read from /proc: their CPU time and memory. */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU accounting (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** Processes descended from `root`, from /proc. */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Ended while we looked.
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [child, ppid] of parent) if (ppid === pid) (out.push(child), walk(child));
  };
  walk(root);
  return out;
}

/** Resident memory (MB) and CPU seconds so far of the workerd processes under a `wrangler dev`. */
export function workerdUsage(root: number): { rssMb: number; cpuSeconds: number } {
  let kb = 0;
  let ticks = 0;
  for (const pid of descendants(root)) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('workerd')) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Ended while we looked.
    }
  }
  return { rssMb: kb / 1024, cpuSeconds: ticks / USER_HZ };
}
