import type { ParamSpec } from '../rpc/method-spec';
import type { NodeParamType } from './params/param-types';

/** A node RPC parameter; `optional` ones are Go pointers (absent = nil = latest/default). */
export function param(name: string, type: NodeParamType, optional = false): ParamSpec {
  return { name, type, optional };
}

/** Immutable when a height was given (success implies it is at or below the latest). */
export const heightGiven = (args: Record<string, unknown>): boolean => args.height !== undefined;
