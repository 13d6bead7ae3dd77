/**
 * Jazzer target: a node RPC URI query string (`GET /<method>?…`), read as the transport reads it, as
 * the params of each node method and each value as every parameter type. Defects: an untyped failure or
 * exception logged, an answer that is not JSON-RPC, a converted value that does not survive its codec's
 * encode (a URI call forwarded upstream), over 1 s.
 */
import * as codecs from '../../../src/node-rpc/params/codecs';
import type { NodeParamType } from '../../../src/node-rpc/params/param-types';
import { fromUriValue } from '../../../src/node-rpc/params/uri-value';
import { CodecError, type Codec } from '../../../src/rpc/codec';
import type { CallContext } from '../../../src/rpc/call-context';
import { NodeDialect } from '../../../src/node-rpc/node-dialect';
import { RpcError } from '../../../src/rpc/errors';
import { checkLogged, engineOf, NODE_METHODS, watchLog } from '../engines';
import { checkAnswer, checkRoundTrip, failureOf, timedAsync } from '../oracles';

watchLog();
const engine = engineOf(new NodeDialect(), NODE_METHODS, 0);
const ctx: CallContext = { transport: 'uri', remote: '127.0.0.1:1', requestId: -1 };
const TYPES = Object.entries(codecs) as [NodeParamType, Codec<unknown>][];

export async function fuzz(data: Buffer): Promise<void> {
  const params: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(data.toString('utf8'))) if (!(k in params)) params[k] = v;
  for (const value of Object.values(params)) {
    for (const [type, codec] of TYPES) {
      let out: unknown;
      if (!failureOf(() => (out = fromUriValue(value, type)), CodecError)) checkRoundTrip(codec, out);
    }
  }
  for (const { name } of NODE_METHODS) {
    const request = { method: name, params: { uri: params }, id: -1 };
    const outcome = await timedAsync(async () => engine.call(request, ctx));
    checkLogged();
    if (!outcome.ok && !(outcome.error instanceof RpcError)) throw new Error(`untyped failure: ${String(outcome.error)}`);
    checkAnswer(engine.answer('-1', outcome, request, ctx).text);
  }
}
