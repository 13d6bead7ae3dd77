import type { CallContext } from './call-context';

/** A parameter as the registry knows it; `type` is interpreted by the surface's param decoder. */
export interface ParamSpec {
  readonly name: string;
  readonly type: string;
  /** Left out = the surface's default (nil, zero value, latest, …). */
  readonly optional?: boolean;
}

export type MethodArgs = Record<string, unknown>;

/** Handler tables read args the registry's param specs already decoded and typed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DecodedArgs = Record<string, any>;

/**
 * One method of one surface: the single truth for parameter parsing, guards, caching and metrics.
 * Category/namespace modules register these; transports never see them directly.
 */
export interface MethodSpec {
  readonly name: string;
  /** Node RPC category (info, tx, abci, evidence, unsafe, events) or EVM namespace (eth, net, …). */
  readonly group: string;
  readonly params: readonly ParamSpec[];
  /** Only served when the surface enables unsafe methods. */
  readonly unsafe?: boolean;
  /** Refused over plain HTTP. */
  readonly websocketOnly?: boolean;
  /** Safe to retry or hedge: reads with no side effects. */
  readonly idempotent?: boolean;
  /** True when this successful answer can never change (a block at a given height). */
  readonly immutable?: (args: MethodArgs, result: unknown) => boolean;
  readonly handler: (args: MethodArgs, ctx: CallContext) => unknown;
}
