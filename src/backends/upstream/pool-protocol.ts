/**
 * What differs between a pool of node-RPC upstreams and a pool of EVM upstreams: how health is read,
 * which answers state the chain, which answered errors mean "this node lacks the data, ask another", how an answered error reaches the
 * client, and the words of the errors when no upstream can serve. Everything else (routing, retries,
 * hedging, breakers, cache, dedup) is the same pool.
 */
import type { RpcError } from '../../rpc/errors';
import type { WireResult } from '../../rpc/result-json';
import type { UpstreamAnswerError } from './upstream-errors';
import type { Upstream } from './upstream';

/** One health probe of an upstream. */
export type Probe =
  | {
      readonly ok: true;
      /** Chain identity: CometBFT's `node_info.network`, the EVM chain id. */
      readonly network: string;
      readonly latest: bigint;
      readonly earliest: bigint;
      readonly catchingUp: boolean;
      /** Set by the health checker: `latest` is far above what anyone else saw, and the node has no such block. */
      readonly unproven?: boolean;
    }
  | { readonly ok: false; readonly error: string };

export interface PoolProtocol {
  probe(u: Upstream, timeoutMs: number): Promise<Probe>;
  /** Whether the node serves block `height` (a head it reports is believed only then, see HealthChecker). */
  hasBlock(u: Upstream, height: bigint, timeoutMs: number): Promise<boolean>;
  /**
   * The chain an answer of `method` states, as `probe` reports one (a network, a chain id); undefined: none.
   * An unread result is read only for a method that states the chain.
   */
  chainOf(method: string, result: WireResult): string | undefined;
  /** Answers meaning "this node lacks the data" rather than "the data does not exist". */
  readonly missingHere: readonly RegExp[];
  /** The error a client gets for an upstream's JSON-RPC error answer. */
  answerError(err: UpstreamAnswerError): RpcError;
  /** e.g. `no upstream node is configured`. */
  readonly noneConfigured: string;
  /** Followed by ` (name: state; …)`, e.g. `no healthy upstream node available`. */
  readonly noneHealthy: string;
}
