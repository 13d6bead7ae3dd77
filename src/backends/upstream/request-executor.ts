/**
 * Runs one request over the pool. Idempotent reads: hedged (a second upstream is asked once the first
 * has taken longer than its latency quantile; the first good answer wins and the other is aborted)
 * and retried on other upstreams with exponential backoff and jitter. Writes (broadcasts) go to one
 * upstream at a time and move to another only when the first surely never received them. Every
 * attempt teaches routing its upstream's latency; one cut short by a hedge (the other upstream answered
 * first) took at least as long as it ran, which is counted as a lower bound: a slow upstream whose every
 * attempt is hedged out thereby falls behind the fast one instead of staying "unmeasured". An answer
 * that states another chain than the pool's is never served: the upstream is quarantined at once and
 * the call is a failure (another upstream is asked).
 */
import { ApplicationError, RpcError } from '../../rpc/errors';
import { BackendUnavailableError } from '../backend-errors';
import type { Json } from '../../rpc/json';
import type { CallResult } from './exchange';
import { UpstreamAnswerError, UpstreamFailure } from './upstream-errors';
import type { PoolProtocol } from './pool-protocol';
import { candidates, type RouteNeeds } from './router';
import type { Upstream } from './upstream';
import type { UpstreamSettings } from '../../config/upstream-config';
import type { UpstreamRequestObserver } from './upstream-observer';
import { startAttempt, type AttemptRole, type AttemptSpan } from '../../tracing/upstream-spans';
import type { ReadWaiters } from './read-waiters';

export interface UpstreamRequest {
  readonly method: string;
  /** By name (node RPC) or by position (EVM). */
  readonly params: Json;
  readonly needs: RouteNeeds;
  readonly idempotent: boolean;
  readonly timeoutMs?: number;
  /** The calls waiting for the answer: once they all timed out the request is abandoned, no retry follows. */
  readonly waiters?: ReadWaiters;
  /** Nothing in the gateway reads the result: it comes as its wire text (UnreadJson). */
  readonly unread?: boolean;
}

/** An answer and the upstream that gave it (whose chain the pool's cache checks). */
export interface AnsweredCall extends CallResult {
  readonly upstream?: Upstream;
}

/** The chain the pool serves ('' until known), and what becomes of an upstream that answers for another. */
export interface ChainGuard {
  readonly current: string;
  quarantine(u: Upstream, network: string): void;
}

export class RequestExecutor {
  /** Told of every request to an upstream as it ends, once the pool is watched. */
  observer: UpstreamRequestObserver | undefined;

  constructor(
    private readonly upstreams: () => readonly Upstream[],
    private readonly settings: UpstreamSettings,
    private readonly protocol: PoolProtocol,
    private readonly chain: ChainGuard,
  ) {}

  execute(req: UpstreamRequest): Promise<AnsweredCall> {
    return req.idempotent ? this.read(req) : this.write(req);
  }

  private async read(req: UpstreamRequest): Promise<AnsweredCall> {
    const tried = new Set<Upstream>();
    let lastError: Error | undefined;
    for (let attempt = 0; attempt <= this.settings.retries; attempt++) {
      if (req.waiters?.abandoned) throw this.final(lastError ?? new UpstreamFailure('aborted', 'aborted'));
      const scope = attempt === 0 ? 'any' : this.retryScope(req, lastError);
      if (attempt > 0) {
        if (scope === 'none' || (scope === 'others' && candidates(this.upstreams(), req.needs, tried).length === 0)) break;
        await sleep(this.backoff(attempt));
      }
      let list = candidates(this.upstreams(), req.needs, tried);
      if (list.length === 0 && attempt > 0 && scope === 'any') list = candidates(this.upstreams(), req.needs);
      if (list.length === 0) throw lastError ? this.final(lastError) : this.unavailable(req.needs);
      if (attempt > 0) list[0].counters.retries++;
      try {
        return await this.hedged(req, list, tried, attempt === 0 ? 'first' : 'retry');
      } catch (err) {
        if (err instanceof UpstreamAnswerError && !this.missingHere(err)) throw this.final(err);
        lastError = err as Error;
      }
    }
    throw this.final(lastError ?? new Error('no attempt made'));
  }

  private async write(req: UpstreamRequest): Promise<AnsweredCall> {
    const tried = new Set<Upstream>();
    for (;;) {
      const [target] = candidates(this.upstreams(), req.needs, tried);
      if (!target) throw tried.size === 0 ? this.unavailable(req.needs) : this.final(new UpstreamFailure('every upstream refused the connection', 'refused'));
      tried.add(target);
      target.breaker.tryAcquire();
      try {
        return await this.attempt(target, req, undefined, tried.size === 1 ? 'first' : 'retry');
      } catch (err) {
        // Only a refused connection proves the node never saw the transaction.
        if (err instanceof UpstreamFailure && err.kind === 'refused') continue;
        throw this.final(err as Error);
      }
    }
  }

  /** The first upstream, then (after the hedge delay, if it is still pending) the second. */
  private hedged(req: UpstreamRequest, list: Upstream[], tried: Set<Upstream>, role: AttemptRole): Promise<AnsweredCall> {
    const primary = list[0];
    const backup = list[1];
    tried.add(primary);
    const delay = backup ? this.hedgeDelay(primary, backup) : undefined;
    if (!backup || delay === undefined) {
      primary.breaker.tryAcquire();
      return this.attempt(primary, req, undefined, role);
    }
    return new Promise<AnsweredCall>((resolve, reject) => {
      const legs: AbortController[] = [];
      let pending = 0;
      let done = false;
      let firstError: unknown;
      const launch = (u: Upstream, as: AttemptRole) => {
        const abort = new AbortController();
        legs.push(abort);
        pending++;
        u.breaker.tryAcquire();
        this.attempt(u, req, abort.signal, as).then(
          (r) => {
            pending--;
            if (done) return;
            done = true;
            clearTimeout(timer);
            legs.forEach((l) => l !== abort && l.abort());
            resolve(r);
          },
          (err) => {
            pending--;
            if (done) return;
            firstError ??= err;
            // A failed first leg starts the second at once.
            if (legs.length === 1) {
              clearTimeout(timer);
              tried.add(backup);
              backup.counters.hedges++;
              return launch(backup, 'hedge');
            }
            if (pending === 0) {
              done = true;
              reject(err instanceof UpstreamAnswerError ? err : firstError);
            }
          },
        );
      };
      launch(primary, role);
      const timer = setTimeout(() => {
        if (done || legs.length > 1) return;
        if (!backup.healthy || backup.retired || !backup.breaker.admits) return;
        tried.add(backup);
        backup.counters.hedges++;
        launch(backup, 'hedge');
      }, delay);
    });
  }

  /** `leg`: the abort of a hedge's leg (when the other leg won). */
  private attempt(u: Upstream, req: UpstreamRequest, leg: AbortSignal | undefined, role: AttemptRole): Promise<AnsweredCall> {
    const started = performance.now();
    const span = startAttempt(u.name, req.method, role);
    u.inFlight++;
    u.counters.requests++;
    // then(answered, failed), not an async frame: one step fewer in every upstream call's promise chain.
    return u.client.call(req.method, req.params, req.timeoutMs ?? this.settings.request_timeout, { signal: leg, traceHeaders: span?.headers, waiters: req.waiters, unread: req.unread }).then(
      ({ result, bytes }) => {
        const stated = this.protocol.chainOf(req.method, result);
        const chain = this.chain.current;
        if (stated !== undefined && chain !== '' && stated !== chain) {
          this.chain.quarantine(u, stated);
          return this.attemptFailed(u, started, span, new UpstreamFailure(`${u.name} answered for chain ${stated}, the pool serves ${chain}`, 'body'));
        }
        u.inFlight--;
        const ms = performance.now() - started;
        u.latency.add(ms);
        u.breaker.success();
        this.observer?.requestEnded(u, ms);
        span?.end();
        return { result, bytes, upstream: u };
      },
      (err: unknown) => this.attemptFailed(u, started, span, err),
    );
  }

  /** Counts a failed attempt on `u` (an answer error is the node's verdict, not a fault of the node) and throws `err` on. */
  private attemptFailed(u: Upstream, started: number, span: AttemptSpan | undefined, err: unknown): never {
    u.inFlight--;
    if (err instanceof UpstreamAnswerError) {
      u.counters.answerErrors++;
      u.breaker.success();
      u.latency.add(performance.now() - started);
    } else if (err instanceof UpstreamFailure && err.kind === 'aborted') {
      // Hedged out (or no caller waits any more): it would have taken at least this long.
      u.latency.addLowerBound(performance.now() - started);
    } else {
      u.counters.failures++;
      u.breaker.failure();
    }
    this.observer?.requestEnded(u, performance.now() - started, err);
    span?.end(err);
    throw err;
  }

  /**
   * How long `u` may take before `backup` is asked too: `u`'s latency quantile once it has 20
   * latencies; before that the backup's (what a read usually costs elsewhere in the pool), so that
   * the first reads of a slow upstream are rescued too; `hedge_max_delay` while neither is known.
   */
  private hedgeDelay(u: Upstream, backup: Upstream): number | undefined {
    const q = this.settings.hedge_quantile;
    if (q <= 0) return undefined;
    const known = u.latency.size >= 20 ? u : backup.latency.size >= 20 ? backup : undefined;
    const observed = known?.latency.quantile(q);
    const { hedge_min_delay: min, hedge_max_delay: max } = this.settings;
    return Math.min(max, Math.max(min, observed ?? max));
  }

  private backoff(attempt: number): number {
    const base = this.settings.retry_backoff * 2 ** (attempt - 1);
    return Math.round(base * (0.5 + Math.random()));
  }

  /**
   * Where a read may be tried again. After a failure: anywhere, the same upstream included. After an
   * answer that the node lacks the data: for a height past every upstream's head, nowhere (no upstream
   * has it; the node's own answer is the client's, at once, as the node itself would give it); for a
   * height the pool has reached, anywhere (the node may be a moment behind its own announcement); for
   * data without a height (state or a block by hash), only on upstreams not yet asked.
   */
  private retryScope(req: UpstreamRequest, err: Error | undefined): 'any' | 'others' | 'none' {
    if (!(err instanceof UpstreamAnswerError)) return 'any';
    const h = req.needs.height;
    if (h === undefined) return 'others';
    return this.upstreams().some((u) => u.healthy && h <= u.latestHeight) ? 'any' : 'none';
  }

  private missingHere(err: UpstreamAnswerError): boolean {
    const text = `${err.rpcMessage}\n${err.detail}`;
    return this.protocol.missingHere.some((re) => re.test(text));
  }

  /** What the client sees: the node's own error, or why no upstream answered. */
  private final(err: Error): RpcError {
    if (err instanceof RpcError) return err;
    if (err instanceof UpstreamAnswerError) return this.protocol.answerError(err);
    return new BackendUnavailableError(`upstream request failed: ${err.message}`);
  }

  /** No upstream can take the request: say why, naming each upstream's state. */
  unavailable(needs: RouteNeeds): ApplicationError {
    const all = this.upstreams();
    const healthy = all.filter((u) => u.healthy);
    if (needs.height !== undefined && healthy.length > 0) {
      const lowest = healthy.reduce((min, u) => (u.earliestHeight < min ? u.earliestHeight : min), healthy[0].earliestHeight);
      if (needs.height < lowest) return new ApplicationError(`height ${needs.height} is not available, lowest height is ${lowest}`);
    }
    if (all.length === 0) return new BackendUnavailableError(this.protocol.noneConfigured);
    const states = all.map((u) => `${u.name}: ${u.healthy ? `circuit breaker ${u.breaker.state}` : `${u.downReason}${u.lastError ? ` (${u.lastError})` : ''}`}`);
    return new BackendUnavailableError(`${this.protocol.noneHealthy} (${states.join('; ')})`);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
