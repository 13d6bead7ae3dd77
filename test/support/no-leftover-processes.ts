/**
 * The test environment: Node's, plus a check after each suite that it left no child process running.
 * Suites run in band, so a child a suite forgets (a gateway that ignored SIGTERM, an nginx whose
 * suite failed half-way) would keep jest from ever exiting. The check stops such children and fails
 * the suite that left them, naming each.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { TestEnvironment } from 'jest-environment-node';

export default class NoLeftoverProcessesEnvironment extends TestEnvironment {
  override async teardown(): Promise<void> {
    await super.teardown();
    const left = runningChildren();
    if (left.length === 0) return;
    for (const child of left) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // It exited meanwhile.
      }
    }
    throw new Error(`the suite left child processes running (now killed): ${left.map((c) => `${c.pid} ${c.command}`).join('; ')}`);
  }
}

interface Child {
  readonly pid: number;
  readonly command: string;
}

/** This process's children that have not exited, from /proc (none where there is no /proc). */
function runningChildren(): Child[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const children: Child[] = [];
  for (const pid of pids) {
    try {
      // stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== process.pid || state === 'Z') continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 200);
      children.push({ pid: Number(pid), command });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return children;
}
