/**
 * The test environment: Node's, plus a check after each suite that it left no child process running
 * and no server listening. Suites run in band, so what a suite forgets (a gateway that ignored SIGTERM,
 * an nginx or an in-process gateway whose suite failed half-way) would keep jest from ever exiting.
 * The check stops what it finds and fails the suite that left it, naming each.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { TestEnvironment } from 'jest-environment-node';

export default class NoLeftoversEnvironment extends TestEnvironment {
  private serversBefore = new Set<Server>();

  override async setup(): Promise<void> {
    await super.setup();
    this.serversBefore = new Set(listeningServers());
  }

  override async teardown(): Promise<void> {
    await super.teardown();
    const left: string[] = [];
    for (const child of runningChildren()) {
      left.push(`process ${child.pid} ${child.command}`);
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // It exited meanwhile.
      }
    }
    for (const server of listeningServers()) {
      if (this.serversBefore.has(server)) continue;
      left.push(`server on ${JSON.stringify(server.address())}`);
      server.close();
      (server as Server & { closeAllConnections?(): void }).closeAllConnections?.();
    }
    if (left.length > 0) throw new Error(`the suite left running (now stopped): ${left.join('; ')}`);
  }
}

/** The servers listening in this process (Node lists its open handles; servers are the ones that never end by themselves). */
function listeningServers(): Server[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h): h is Server => typeof (h as Server).listening === 'boolean' && (h as Server).listening && typeof (h as Server).address === 'function');
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
