import { readdirSync, readFileSync } from 'node:fs';

export interface GroupProcess {
  readonly pid: number;
  readonly ppid: number;
  readonly command: string;
}

/**
 * The live processes (zombies left out) that are this process's children or share its process group,
 * this process and its ancestors excepted: a child's child that outlived its parent is still in the
 * group. Empty where there is no /proc.
 */
export function processesOfThisGroup(): GroupProcess[] {
  const group = readStat(process.pid)?.pgrp;
  const ancestors = new Set<number>([process.pid]);
  for (let pid = process.ppid; pid > 1 && !ancestors.has(pid); pid = readStat(pid)?.ppid ?? 0) ancestors.add(pid);
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const found: GroupProcess[] = [];
  for (const name of names) {
    const pid = Number(name);
    const stat = ancestors.has(pid) ? undefined : readStat(pid);
    if (!stat || stat.state === 'Z' || (stat.ppid !== process.pid && stat.pgrp !== group)) continue;
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 200);
      found.push({ pid, ppid: stat.ppid, command });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

/** /proc/PID/stat's "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so read after the last ')'. */
function readStat(pid: number): { state: string; ppid: number; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid), pgrp: Number(pgrp) };
  } catch {
    return undefined;
  }
}
