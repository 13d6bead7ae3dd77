import type { GatewayConfigService } from '../config/gateway-config.service';
import type { CallContext } from './call-context';
import type { Codec } from './codec';
import type { Json } from './json';
import { isNullResult, readResult } from './result-json';

/** One parameter of a method: its name, its codec, and whether it may be left out (a Go pointer). */
export interface Param<N extends string = string, T = unknown, O extends boolean = boolean> {
  readonly name: N;
  readonly codec: Codec<T>;
  readonly optional: O;
}

/** A required parameter (left out: an error, or the codec's zero value where the interface allows it). */
export function param<N extends string, T>(name: N, codec: Codec<T>): Param<N, T, false> {
  return { name, codec, optional: false };
}

/** An optional parameter: left out (or null) it is undefined, and the handler picks the default. */
export function optional<N extends string, T>(name: N, codec: Codec<T>): Param<N, T, true> {
  return { name, codec, optional: true };
}

export type Params = readonly Param[];

/** The handler's arguments, inferred from the parameter list. */
export type ArgsOf<P extends Params> = {
  readonly [Q in P[number] as Q extends Param<string, unknown, false> ? Q['name'] : never]: Q extends Param<string, infer T, false> ? T : never;
} & {
  readonly [Q in P[number] as Q extends Param<string, unknown, true> ? Q['name'] : never]?: Q extends Param<string, infer T, true> ? T : never;
};

/**
 * How an answer may be cached (by the upstream response cache, and by HTTP caches through
 * Cache-Control on the node RPC's URI and POST answers).
 */
export type CacheRule =
  /**
   * Never changes once answered. `found`: a null ("not found", which may appear later) is not kept,
   * told without parsing an answer passed on unread; `keep` decides on the result's value besides.
   */
  | { readonly kind: 'immutable'; readonly found?: boolean; readonly keep?: (result: Json) => boolean }
  /** An answer about the latest height: kept for at most one block. */
  | { readonly kind: 'latest' }
  | { readonly kind: 'never' };

export const IMMUTABLE: CacheRule = { kind: 'immutable' };
export const LATEST: CacheRule = { kind: 'latest' };
export const NEVER: CacheRule = { kind: 'never' };

/** What a method's hooks read besides the call's arguments: the gateway's configuration. */
export interface MethodEnv {
  readonly config: GatewayConfigService;
}

/** What a split hook knows of the pool that will run the parts. */
export interface SplitPool {
  /** The pool's head (0 before any upstream was seen healthy). */
  readonly head: bigint;
  /** Asks the pool for its head now (the cached one may lag). */
  freshHead(): Promise<bigint>;
}

/**
 * How an upstream call is cut into reads spread over the pool (eth_getLogs over a long range), as
 * eRPC keeps such logic beside the method rather than in a backend. (`AOut`, `ROut`: see MethodMeta.)
 */
export interface SplitRule<A, R, AOut = A, ROut = R> {
  /** The parts of the call, or undefined to send it whole; throws the refusal of a bad call. */
  parts(args: A, pool: SplitPool, env: MethodEnv): Promise<readonly AOut[] | undefined>;
  /** The answer to the whole call from the parts' answers, in order; throws when it is over a cap. */
  join(results: R[], args: A, env: MethodEnv): ROut;
}

/**
 * The metadata every part of the gateway reads: guards, batch ordering, caching, routing, metrics, and
 * the hooks of a call. `A` and `R` are the arguments and the result; what the hooks return is `AOut` and
 * `ROut`, the same in a definition, and `unknown` where the types are erased (AnyMethod).
 */
export interface MethodMeta<A, R, AOut = A, ROut = R> {
  /** Served only with `[rpc] unsafe = true`. */
  readonly unsafe?: boolean;
  /** Needs a connection to push notifications to; refused over HTTP. */
  readonly websocketOnly?: boolean;
  /** A read with no side effects: safe to retry, hedge, and run concurrently with other reads of a batch. */
  readonly idempotent?: boolean;
  /** How the answer may be cached (by both backends' runs: forwarded or computed); default: never. */
  readonly cache?: (args: A) => CacheRule;
  /** The height the call reads, when it names one (an upstream lacking it is not asked). */
  readonly height?: (args: A) => bigint | undefined;
  /**
   * The height an answer shows the client's transaction in (a receipt, a committed broadcast): the
   * client's next reads are of that block or a later one, so upstream mode avoids nodes behind it.
   */
  readonly revealsHeight?: (result: Json) => bigint | undefined;
  /**
   * Checks and completes the decoded arguments before the call runs, whoever answers it: throws the
   * refusal (a LimitError for a cap, so metrics count it), or returns the arguments to run with. It
   * returns the very object it got when it changes nothing: an upstream then gets the client's params
   * exactly as they were sent.
   */
  readonly prepare?: (args: A, env: MethodEnv) => AOut;
  /** Changes the backend's answer, only where the gateway must (an upstream's bytes then pass no more untouched). */
  readonly finish?: (result: R, args: A, env: MethodEnv) => ROut;
  /** Upstream mode: cuts the call into parts spread over the pool. */
  readonly split?: SplitRule<A, R, AOut, ROut>;
  /** Upstream mode: how long the upstream may take (ms); undefined = the pool's request_timeout. */
  readonly timeoutMs?: (env: MethodEnv) => number | undefined;
  /**
   * With a handler: the backend still answers the call (upstream mode forwards it) and the handler is
   * only how the embedded devnet answers it. For a plugin's method that nodes serve but the devnet
   * does not natively.
   */
  readonly forward?: boolean;
  /**
   * How the gateway computes the answer itself, in both modes (filters, subscriptions, signing, a
   * broadcast through the queue, …). Absent: the backend answers (the devnet's handler for this
   * definition, or the upstream pool through the one forward path).
   */
  readonly handler?: (args: A, ctx: CallContext) => ROut | Promise<ROut>;
  /** The result type of a method the backend answers. */
  readonly result?: Returns<ROut>;
}

declare const RESULT: unique symbol;
/** The type of a method's result, for a method the backend answers (a type only; see `returns`). */
export interface Returns<R> {
  readonly [RESULT]?: R;
}
const RETURNS: Returns<never> = Object.freeze({});
/** Names the result type of a method the backend answers: `result: returns<RpcBlock | null>()`. */
export function returns<R>(): Returns<R> {
  return RETURNS;
}

/** What names a method: its name, its group and its parameters. */
interface MethodName<P extends Params> {
  readonly name: string;
  /** Node RPC category (info, tx, abci, evidence, unsafe, events) or EVM namespace (eth, net, …). */
  readonly group: string;
  readonly params: P;
}

/** One method of one interface: the single truth for its name, params, metadata and answer. */
export interface MethodDefinition<P extends Params = Params, R = unknown> extends MethodName<P>, MethodMeta<ArgsOf<P>, R> {}

/** A definition with its types erased, as the registry and the engine hold it. */
export interface AnyMethod extends MethodName<Params>, MethodMeta<never, never, unknown, unknown> {}

/** The arguments of a definition's handler or hooks. */
export type ArgsOfMethod<M> = M extends { readonly params: infer P extends Params } ? ArgsOf<P> : never;
/** The result of a definition. */
export type ResultOf<M> = M extends { readonly handler?: (args: never, ctx: CallContext) => infer H } ? Awaited<H> : unknown;

/** Declares a method; the handler's and hooks' argument types are inferred from `params`. */
export function defineMethod<const P extends Params, R>(definition: MethodDefinition<P, R>): MethodDefinition<P, R> {
  return definition;
}

/** The gateway computes the answer itself (a handler of its own, not the backend's). */
export function isComputed(method: AnyMethod): boolean {
  return method.handler !== undefined && method.forward !== true;
}

/** Decoded arguments as the engine passes them around (typed again inside each handler). */
export type MethodArgs = Record<string, unknown>;

/** The cache rule of a call (never, unless the definition says otherwise). */
export function cacheRuleOf(method: AnyMethod, args: MethodArgs): CacheRule {
  return method.cache ? method.cache(args as never) : NEVER;
}

/** The height a call reads, if it names one. */
export function heightOf(method: AnyMethod, args: MethodArgs): bigint | undefined {
  return method.height?.(args as never);
}

/** True when this successful answer can never change. */
export function isImmutableAnswer(method: AnyMethod, args: MethodArgs, result: unknown): boolean {
  return keepsForever(cacheRuleOf(method, args), result);
}

/** Whether `rule` keeps `result` for ever; an unread answer is parsed only for a `keep` predicate. */
export function keepsForever(rule: CacheRule, result: unknown): boolean {
  if (rule.kind !== 'immutable' || (rule.found === true && isNullResult(result))) return false;
  return rule.keep === undefined || rule.keep(readResult(result) as Json);
}
