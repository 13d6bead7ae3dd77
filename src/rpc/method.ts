import type { CallContext } from './call-context';
import type { Codec } from './codec';
import type { Json } from './json';

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
  readonly [Q in P[number] as Q['name']]: Q extends Param<string, infer T, infer O> ? (O extends true ? T | undefined : T) : never;
};

/**
 * How an answer may be cached (by the upstream response cache, and by HTTP caches through
 * Cache-Control on the node RPC's URI and POST answers).
 */
export type CacheRule =
  /** Never changes once answered; `keep` decides on the result (a null "not found" may appear later). */
  | { readonly kind: 'immutable'; readonly keep?: (result: Json) => boolean }
  /** An answer about the latest height: kept for at most one block. */
  | { readonly kind: 'latest' }
  | { readonly kind: 'never' };

export const IMMUTABLE: CacheRule = { kind: 'immutable' };
export const LATEST: CacheRule = { kind: 'latest' };
export const NEVER: CacheRule = { kind: 'never' };

/** The metadata every part of the gateway reads: guards, batch ordering, caching, routing, metrics. */
export interface MethodMeta<A> {
  /** Served only with `[rpc] unsafe = true`. */
  readonly unsafe?: boolean;
  /** Needs a connection to push notifications to; refused over HTTP. */
  readonly websocketOnly?: boolean;
  /** A read with no side effects: safe to retry, hedge, and run concurrently with other reads of a batch. */
  readonly idempotent?: boolean;
  /** How the answer may be cached; default: never. */
  readonly cache?: (args: A) => CacheRule;
  /** The height the call reads, when it names one (an upstream lacking it is not asked). */
  readonly height?: (args: A) => bigint | undefined;
  /**
   * The height an answer shows the client's transaction in (a receipt, a committed broadcast): the
   * client's next reads are of that block or a later one, so upstream mode avoids nodes behind it.
   */
  readonly revealsHeight?: (result: Json) => bigint | undefined;
  /**
   * In upstream mode the call goes to the upstream as the client sent it (same method, same params):
   * the handler only runs on the embedded backend. Set on methods that are one backend call.
   */
  readonly forward?: boolean;
  /**
   * Checks the decoded arguments before the call runs, in both backend modes (a forwarded call too):
   * throws the refusal (a LimitError for a cap, so metrics count it). For checks that must hold
   * whoever answers, such as the query caps of `tx_search`.
   */
  readonly validate?: (args: A) => void;
}

/** One method of one interface: the single truth for its name, params, metadata and handler. */
export interface MethodDefinition<P extends Params = Params, R = unknown> extends MethodMeta<ArgsOf<P>> {
  readonly name: string;
  /** Node RPC category (info, tx, abci, evidence, unsafe, events) or EVM namespace (eth, net, …). */
  readonly group: string;
  readonly params: P;
  readonly handler: (args: ArgsOf<P>, ctx: CallContext) => R | Promise<R>;
}

/** A definition with its types erased, as the registry and the engine hold it. */
export type AnyMethod = MethodDefinition<Params, unknown> & {
  readonly handler: (args: never, ctx: CallContext) => unknown;
  readonly cache?: (args: never) => CacheRule;
  readonly height?: (args: never) => bigint | undefined;
  readonly validate?: (args: never) => void;
};

/** Declares a method; the handler's argument types are inferred from `params`. */
export function defineMethod<const P extends Params, R>(definition: MethodDefinition<P, R>): AnyMethod {
  return definition as unknown as AnyMethod;
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
  const rule = cacheRuleOf(method, args);
  return rule.kind === 'immutable' && (rule.keep?.(result as Json) ?? true);
}
