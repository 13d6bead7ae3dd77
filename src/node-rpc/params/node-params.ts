import type { Transport } from '../../rpc/call-context';
import { CodecError } from '../../rpc/codec';
import { InvalidParamsError } from '../../rpc/errors';
import type { AnyMethod, MethodArgs, Param } from '../../rpc/method';

/** URI calls hand their query to the engine as a plain map (first value of each key). */
export interface UriParams {
  readonly uri: Record<string, string>;
}

function isUriParams(params: unknown): params is UriParams {
  return typeof params === 'object' && params !== null && 'uri' in params && !Array.isArray(params);
}

/** Left out: undefined for a Go pointer, else the type's zero value, as CometBFT hands it to a handler. */
function absent(p: Param): unknown {
  return p.optional ? undefined : p.codec.zero?.();
}

function fromUri(method: AnyMethod, query: Record<string, string>): MethodArgs {
  const args: MethodArgs = {};
  for (const p of method.params) {
    const text = query[p.name];
    if (text === undefined || text === '') args[p.name] = absent(p);
    else if (p.codec.decodeText) args[p.name] = p.codec.decodeText(text);
    else throw new CodecError(`${p.name} has no URI form`);
  }
  return args;
}

function fromJson(method: AnyMethod, params: unknown): MethodArgs {
  const args: MethodArgs = {};
  // An absent params key is treated like `{}`: CometBFT panics there, which is a bug we do not copy.
  if (params === undefined || params === null) params = {};
  if (Array.isArray(params)) {
    if (params.length !== method.params.length) {
      const names = method.params.map((p) => p.name).join(' ');
      throw new CodecError(`expected ${method.params.length} parameters ([${names}]), got ${params.length} (${JSON.stringify(params)})`);
    }
    method.params.forEach((p, i) => {
      const value: unknown = params[i];
      args[p.name] = value === null ? absent(p) : p.codec.decode(value);
    });
    return args;
  }
  if (typeof params !== 'object') throw new CodecError(`unknown type for JSON params: ${typeof params}. Expected map or array`);
  const named = params as Record<string, unknown>;
  for (const p of method.params) {
    const value = named[p.name];
    args[p.name] = value === undefined || value === null ? absent(p) : p.codec.decode(value);
  }
  return args;
}

/**
 * Decodes node RPC params as CometBFT does: by name (object or URI query; a missing or null value is
 * the default) or by position (exactly as many entries as the method has parameters).
 */
export function decodeNodeParams(method: AnyMethod, params: unknown, transport: Transport): MethodArgs {
  const uri = transport === 'uri' && isUriParams(params);
  try {
    return uri ? fromUri(method, params.uri) : fromJson(method, params);
  } catch (err) {
    if (!(err instanceof CodecError)) throw err;
    const prefix = uri ? 'error converting http params to arguments' : 'error converting json params to arguments';
    throw new InvalidParamsError('Invalid params', `${prefix}: ${err.message}`);
  }
}
