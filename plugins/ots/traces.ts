/**
 * ots_traceTransaction, ots_getInternalOperations and ots_getTransactionError: each one trace of the
 * mined transaction by the backend's callTracer (the revert data needs only its top frame), turned
 * into Otterscan's shapes (call-frames.ts). A mined transaction's trace never changes.
 *
 * The callTracer names no address for a creation that failed; for a deployment transaction that
 * failed, the trace takes the address from the receipt (`contractAddress`), as erigon names it.
 */
import { defineMethod, evmCodecs, evmMethods, IMMUTABLE, param, type AnyMethod, type CallContext, type PluginInvoker } from 'rpc-gateway/plugin-api';
import { callFrameOf, internalOperations, revertData, traceEntries, type CallFrame } from './call-frames';

export function traceMethods(evm: PluginInvoker): AnyMethod[] {
  const read = { group: 'ots', idempotent: true, forward: true, cache: () => IMMUTABLE, params: [param('hash', evmCodecs.hash)] } as const;
  const callTree = async (hash: string, ctx: CallContext, topOnly = false): Promise<CallFrame> =>
    callFrameOf(await evm.invoke(evmMethods.debug_traceTransaction, { hash, config: { tracer: 'callTracer', tracerConfig: topOnly ? { onlyTopCall: true } : {} } }, ctx));
  const failedDeployment = async (hash: string, top: CallFrame, ctx: CallContext): Promise<CallFrame> => {
    if (!top.type.startsWith('CREATE') || top.to !== undefined) return top;
    const address = (await evm.invoke(evmMethods.eth_getTransactionReceipt, { hash }, ctx))?.contractAddress;
    return typeof address === 'string' ? { ...top, to: address } : top;
  };
  return [
    defineMethod({ ...read, name: 'ots_traceTransaction', handler: async (a, ctx) => traceEntries(await failedDeployment(a.hash, await callTree(a.hash, ctx), ctx)) }),
    defineMethod({ ...read, name: 'ots_getInternalOperations', handler: async (a, ctx) => internalOperations(await callTree(a.hash, ctx)) }),
    defineMethod({ ...read, name: 'ots_getTransactionError', handler: async (a, ctx) => revertData(await callTree(a.hash, ctx, true)) }),
  ];
}
