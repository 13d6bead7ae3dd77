import type { TraceConfig } from '../evm-types';
import type { JsonObject } from '../../rpc/json';
import { decodeBool, decodeString, goMembers, isObject, jsonKind, typeError, type GoField } from './go-json';

const STRUCT = 'TraceConfig';

/** Trace options the backend honours, by the lower-cased JSON name Go matches. */
const FIELDS: Record<string, { name: keyof TraceConfig; decode: (value: unknown, field: GoField) => unknown }> = {
  tracer: { name: 'tracer', decode: (v, f) => decodeString(v, 'string', f) },
  timeout: { name: 'timeout', decode: (v, f) => decodeString(v, 'string', f) },
  disablestorage: { name: 'disableStorage', decode: decodeBool },
  disablestack: { name: 'disableStack', decode: decodeBool },
  enablememory: { name: 'enableMemory', decode: decodeBool },
  enablereturndata: { name: 'enableReturnData', decode: decodeBool },
  tracerconfig: {
    name: 'tracerConfig',
    decode: (v, f) => {
      if (!isObject(v)) throw typeError(jsonKind(v), 'map[string]interface {}', f);
      return v as JsonObject;
    },
  },
};

/** debug_trace* options (`*TraceConfig`: null or absent = defaults). */
export function decodeTraceConfig(value: unknown): TraceConfig {
  if (value === null) return {};
  if (!isObject(value)) throw typeError(jsonKind(value), 'types.TraceConfig');
  const config: Record<string, unknown> = {};
  for (const [key, member] of goMembers(value)) {
    const field = FIELDS[key];
    if (!field || member === null) continue;
    config[field.name] = field.decode(member, { struct: STRUCT, path: field.name });
  }
  return config as TraceConfig;
}
