/**
 * The test environment: Node's, plus a check after each suite that it left no process running, no
 * server listening and no timer that holds the process open for long (an interval, or a timeout of
 * LONG_TIMEOUT_MS or more, still pending SETTLE_MS after the suite). Suites run in band, so what a
 * suite forgets (a gateway that ignored SIGTERM, an nginx or an in-process gateway whose suite failed
 * half-way, a poll loop nobody stops, a library's timer that re-arms itself) would keep jest from ever
 * exiting. The check stops what it finds and fails the suite that left it, naming each (a timer by the
 * stack that set it).
 */
import type { Server } from 'node:net';
import timers from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { TestEnvironment } from 'jest-environment-node';
import { type GroupProcess, processesOfThisGroup } from './process-group';

/** A pending ref'd timeout this long or longer is a leftover; shorter ones end by themselves soon after. */
const LONG_TIMEOUT_MS = 1_000;
/**
 * How long leftover timers and processes are given to end before they are stopped and reported: a
 * library's watchdog (BullMQ's 11 s deadline on a blocking read) fires within it and is gone; a timer
 * that sets itself again, or an interval, is still there.
 */
const SETTLE_MS = 15_000;
/** Recorded timers are swept for ended ones from this many on. */
const PRUNE_FROM = 10_000;

export default class NoLeftoversEnvironment extends TestEnvironment {
  private serversBefore = new Set<Server>();
  private readonly timers = new TimerWatch();
  private readonly processes = new ProcessWatch();

  override async setup(): Promise<void> {
    await super.setup();
    this.serversBefore = new Set(listeningServers());
    this.processes.snapshot();
    this.timers.install(this.global);
  }

  override async teardown(): Promise<void> {
    await super.teardown();
    // What ends by itself is let end: a child stopped as the suite ends is still exiting; a socket closed
    // then clears its timers (ws's closing handshake, ioredis's wait for the server's FIN) a little
    // later; a watchdog fires. Timers set meanwhile are still recorded, so one that sets itself again is seen.
    const settled = () => this.timers.leftovers().length === 0 && this.processes.leftovers().length === 0;
    for (const end = Date.now() + SETTLE_MS; Date.now() < end && !settled(); ) await sleep(20);
    this.timers.uninstall();
    const left: string[] = this.timers.stopLeftovers();
    left.push(...this.processes.killLeftovers());
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

/**
 * Processes started during the suite that have not exited: this process's children, and whatever else
 * joined its process group meanwhile (a child's child outlives a killed parent as an orphan, and holds
 * the pipes it inherited open, so that jest waits for them). Empty where there is no /proc.
 */
class ProcessWatch {
  private before = new Set<number>();

  snapshot(): void {
    this.before = new Set(processesOfThisGroup().map((p) => p.pid));
  }

  leftovers(): GroupProcess[] {
    return processesOfThisGroup().filter((p) => p.ppid === process.pid || !this.before.has(p.pid));
  }

  /** Kills every leftover and describes it. */
  killLeftovers(): string[] {
    return this.leftovers().map((p) => {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // It exited meanwhile.
      }
      return `process ${p.pid} ${p.command}${p.ppid === process.pid ? '' : ' (not a child: an orphan of one)'}`;
    });
  }
}

type Timer = NodeJS.Timeout & { _idleTimeout: number; _repeat: number | null; _destroyed: boolean };
type TimerFn = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => Timer;

/**
 * Records every pending timer the suite creates through setTimeout/setInterval (its context's globals
 * and node:timers), with the stack that created it, until teardown. A timeout is forgotten when it fires
 * and any timer when it is cleared, so that the record holds no ended timer's callback (and what that
 * keeps alive) in a suite that measures its own memory. Node's own timers (a socket's idle timeout) are
 * not seen; the sockets they belong to are checked as servers and children are.
 */
class TimerWatch {
  private readonly created = new Map<Timer, Error>();
  /** At this many recorded timers, those ended some other way (timer.close()) are forgotten (see wrap). */
  private pruneAt = PRUNE_FROM;
  private restore: (() => void)[] = [];

  install(global: Record<string, unknown>): void {
    const target = timers as unknown as Record<string, unknown>;
    for (const name of ['setTimeout', 'setInterval'] as const) {
      const wrapped = this.wrap(timers[name] as unknown as TimerFn, name === 'setTimeout');
      this.restore.push(replace(global, name, wrapped), replace(target, name, wrapped));
    }
    for (const name of ['clearTimeout', 'clearInterval'] as const) {
      const real = timers[name];
      const created = this.created;
      const wrapped = (timer?: Timer) => {
        if (timer !== undefined) created.delete(timer);
        real(timer);
      };
      this.restore.push(replace(global, name, wrapped), replace(target, name, wrapped));
    }
  }

  /** Restores the real functions. */
  uninstall(): void {
    this.restore.forEach((undo) => undo());
    this.restore = [];
  }

  leftovers(): Timer[] {
    return [...this.created.keys()].filter(isLeftover);
  }

  /** Stops each leftover timer and describes it. */
  stopLeftovers(): string[] {
    const left = this.leftovers().map((timer) => {
      const kind = timer._repeat === null ? `timeout of ${timer._idleTimeout} ms` : `interval of ${timer._idleTimeout} ms`;
      clearTimeout(timer);
      const stack = this.created.get(timer)!.stack?.split('\n').slice(2, 6).map((line) => line.trim());
      return `${kind} set ${stack?.join(' < ')}`;
    });
    this.created.clear();
    this.pruneAt = PRUNE_FROM;
    return left;
  }

  private wrap(real: TimerFn, once: boolean): TimerFn {
    const watch = this;
    const wrapped = function (this: unknown, callback: Parameters<TimerFn>[0], ...rest: unknown[]): Timer {
      const fire = once && typeof callback === 'function'
        ? function (this: unknown, ...args: unknown[]) {
            watch.created.delete(timer);
            return callback.apply(this, args);
          }
        : callback;
      const timer = real.call(this, fire, ...(rest as [number?, ...unknown[]]));
      watch.created.set(timer, new Error());
      // Timers ended some other way are forgotten now and then; the next time comes when the record has
      // doubled, so the sweeps cost O(1) per timer.
      if (watch.created.size >= watch.pruneAt) {
        for (const t of watch.created.keys()) if (t._destroyed) watch.created.delete(t);
        watch.pruneAt = Math.max(PRUNE_FROM, 2 * watch.created.size);
      }
      return timer;
    };
    const custom = (real as unknown as Record<symbol, unknown>)[promisify.custom];
    if (custom !== undefined) Object.defineProperty(wrapped, promisify.custom, { value: custom });
    return wrapped as TimerFn;
  }
}

/** A timer still pending and holding the process open: an interval, or a long timeout. */
function isLeftover(timer: Timer): boolean {
  if (timer._destroyed || timer._idleTimeout < 0 || !timer.hasRef()) return false;
  return timer._repeat !== null || timer._idleTimeout >= LONG_TIMEOUT_MS;
}

function replace(target: Record<string, unknown>, name: string, value: unknown): () => void {
  const before = target[name];
  target[name] = value;
  return () => {
    if (target[name] === value) target[name] = before;
  };
}
