import { Injectable } from '@nestjs/common';

/** A readiness check run on every probe; false, a rejection or a timeout mean "not ready". */
export type ReadinessCheck = () => boolean | Promise<boolean>;

export interface ReadinessState {
  readonly ready: boolean;
  /** Each condition and check by name, `ok` or why not. */
  readonly checks: Record<string, string>;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * Whether the gateway should receive traffic (`/readyz`). Modules report to it: a condition is
 * declared with `require(name)` and reported with `report(name, ok)` (e.g. the upstream backend's
 * `upstreams`: at least one healthy upstream), a check is a function run on each probe (e.g. the
 * backend answering `health`). Once shutdown begins it answers "not ready" for good, so a load
 * balancer drains the replica before it stops. It also counts the calls in flight for that drain.
 */
@Injectable()
export class ReadinessService {
  private readonly conditions = new Map<string, boolean>([['config', true]]);
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly inFlightSources = new Set<() => number>();
  private shuttingDown = false;

  /** Declares a condition that holds only once reported true. */
  require(name: string): void {
    if (!this.conditions.has(name)) this.conditions.set(name, false);
  }

  report(name: string, ok: boolean): void {
    this.conditions.set(name, ok);
  }

  addCheck(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** From now on the gateway is not ready, whatever else holds. */
  beginShutdown(): void {
    this.shuttingDown = true;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  async state(): Promise<ReadinessState> {
    const checks: Record<string, string> = {};
    let ready = !this.shuttingDown;
    if (this.shuttingDown) checks.shutdown = 'shutting down';
    for (const [name, ok] of this.conditions) {
      checks[name] = ok ? 'ok' : 'not ready';
      ready &&= ok;
    }
    const results = await Promise.all([...this.checks].map(async ([name, check]) => [name, await runCheck(check)] as const));
    for (const [name, result] of results) {
      checks[name] = result;
      ready &&= result === 'ok';
    }
    return { ready, checks };
  }

  /** Adds a count of calls being served (a dispatcher's in-flight calls) to what a drain waits for. */
  trackInFlight(source: () => number): void {
    this.inFlightSources.add(source);
  }

  inFlight(): number {
    let n = 0;
    for (const source of this.inFlightSources) n += source();
    return n;
  }

  /** Resolves once no call is in flight (true) or when the timeout passes first (false). */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight() > 0) {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return true;
  }
}

async function runCheck(check: ReadinessCheck): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timed out'), CHECK_TIMEOUT_MS)));
    return await Promise.race([Promise.resolve().then(check).then((ok) => (ok ? 'ok' : 'not ready')), timeout]);
  } catch (err) {
    return `failing: ${err instanceof Error ? err.message : String(err)}`;
  } finally {
    clearTimeout(timer);
  }
}
