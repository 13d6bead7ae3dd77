import type { MethodSpec, ParamSpec } from '../../rpc/method-spec';
import type { EvmParamType } from '../codec/param-types';

/** An EVM method parameter; `optional` ones are Go pointers (absent or null = nil). */
export function param(name: string, type: EvmParamType, optional = false): ParamSpec {
  return { name, type, optional };
}

/** A provider that contributes methods to the EVM registry (one per namespace part). */
export interface MethodTable {
  methods(): MethodSpec[];
}
