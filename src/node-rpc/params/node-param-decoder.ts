import type { CallContext } from '../../rpc/call-context';
import type { ParamDecoder } from '../../rpc/dispatcher';
import { InvalidParamsError } from '../../rpc/errors';
import type { MethodArgs, MethodSpec } from '../../rpc/method-spec';
import { ConversionError, fromJsonValue } from './json-value';
import { zeroValue, type NodeParamType } from './param-types';
import { fromUriValue } from './uri-value';

/** URI calls hand the decoder their query as a plain map (first value of each key). */
export interface UriParams {
  readonly uri: Record<string, string>;
}

export function isUriParams(params: unknown): params is UriParams {
  return typeof params === 'object' && params !== null && 'uri' in params && !Array.isArray(params);
}

/**
 * Decodes node RPC params as CometBFT does: by name (object or URI query; a missing or null value is
 * the default) or by position (exactly as many entries as the method has parameters).
 */
export class NodeParamDecoder implements ParamDecoder {
  decode(spec: MethodSpec, params: unknown, ctx: CallContext): MethodArgs {
    const uri = ctx.transport === 'uri' && isUriParams(params);
    const prefix = uri ? 'error converting http params to arguments' : 'error converting json params to arguments';
    try {
      if (uri) return this.fromUri(spec, params.uri);
      return this.fromJson(spec, params);
    } catch (err) {
      if (err instanceof ConversionError) throw new InvalidParamsError('Invalid params', `${prefix}: ${err.message}`);
      throw err;
    }
  }

  private fromUri(spec: MethodSpec, query: Record<string, string>): MethodArgs {
    const args: MethodArgs = {};
    for (const p of spec.params) {
      const text = query[p.name];
      args[p.name] = text === undefined || text === '' ? this.absent(p.type as NodeParamType, p.optional) : fromUriValue(text, p.type as NodeParamType);
    }
    return args;
  }

  private fromJson(spec: MethodSpec, params: unknown): MethodArgs {
    const args: MethodArgs = {};
    // An absent params key is treated like `{}`: CometBFT panics there, which is a bug we do not copy.
    if (params === undefined || params === null) params = {};
    if (Array.isArray(params)) {
      if (params.length !== spec.params.length) {
        const names = spec.params.map((p) => p.name).join(' ');
        throw new ConversionError(`expected ${spec.params.length} parameters ([${names}]), got ${params.length} (${JSON.stringify(params)})`);
      }
      spec.params.forEach((p, i) => {
        const v = params as unknown[];
        args[p.name] = v[i] === null ? this.absent(p.type as NodeParamType, p.optional) : fromJsonValue(v[i], p.type as NodeParamType);
      });
      return args;
    }
    if (typeof params !== 'object') {
      throw new ConversionError(`unknown type for JSON params: ${typeof params}. Expected map or array`);
    }
    const named = params as Record<string, unknown>;
    for (const p of spec.params) {
      const v = named[p.name];
      args[p.name] = v === undefined || v === null ? this.absent(p.type as NodeParamType, p.optional) : fromJsonValue(v, p.type as NodeParamType);
    }
    return args;
  }

  private absent(type: NodeParamType, optional: boolean | undefined): unknown {
    return optional ? undefined : zeroValue(type);
  }
}
