/**
 * What watches the upstream pools from outside (the metrics), provided under UPSTREAM_OBSERVER; without
 * one nothing watches and nothing is reported. A pool hands itself over once, so that its state is read
 * when wanted, and reports each request it sends to an upstream as it ends.
 */
import { UpstreamAnswerError, UpstreamFailure } from './upstream-errors';
import type { Upstream } from './upstream';
import type { UpstreamPool } from './upstream-pool';

export const UPSTREAM_OBSERVER = Symbol('UPSTREAM_OBSERVER');

/** Which public interface a pool serves. */
export type PoolSurface = 'node' | 'evm';

export interface UpstreamObserver {
  /** Watches `pool` from now on; its requests report to what this returns. */
  watch(pool: UpstreamPool, surface: PoolSurface): UpstreamRequestObserver;
}

export interface UpstreamRequestObserver {
  /** A request to `u` ended after `ms`: with a result (`error` undefined) or with what it threw. */
  requestEnded(u: Upstream, ms: number, error?: unknown): void;
}

/** How a request to an upstream failed. */
export type UpstreamErrorKind = 'timeout' | 'connection' | 'http' | 'rpc';

const FAILURE_KINDS: Record<UpstreamFailure['kind'], UpstreamErrorKind | undefined> = {
  refused: 'connection',
  connect: 'connection',
  timeout: 'timeout',
  http: 'http',
  body: 'http',
  // A hedge leg cut off because the other answered first: not a failure of the upstream.
  aborted: undefined,
};

/** The kind of a request's error: `rpc` for a JSON-RPC error answer; undefined for an aborted hedge leg. */
export function upstreamErrorKind(error: unknown): UpstreamErrorKind | undefined {
  if (error instanceof UpstreamAnswerError) return 'rpc';
  if (error instanceof UpstreamFailure) return FAILURE_KINDS[error.kind];
  return 'connection';
}
