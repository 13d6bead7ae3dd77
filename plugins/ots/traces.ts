/**
 * ots_traceTransaction, ots_getInternalOperations and ots_getTransactionError: each one trace of the
 * mined transaction by the backend's callTracer (the revert data needs only its top frame), turned
 * into Otterscan's shapes (call-frames.ts). A mined transaction's trace never changes.
 *
 * The callTracer names no address for a creation that failed; for a deployment transaction that
 * failed, the trace takes the address from the receipt (`contractAddress`), as erigon names it.
 */
import { defineMethod, evmCodecs, IMMUTABLE, param, type AnyMethod, type EvmBackend } from 'rpc-gateway/plugin-api';
import { callFrameOf, internalOperations, revertData, traceEntries, type CallFrame } from './call-frames';

export function traceMethods(evm: EvmBackend): AnyMethod[] {
  const read = { group: 'ots', idempotent: true, forward: true, cache: () => IMMUTABLE, params: [param('hash', evmCodecs.hash)] } as const;
  const callTree = async (hash: string, topOnly = false): Promise<CallFrame> =>
    callFrameOf(await evm.traceTransaction(hash, { tracer: 'callTracer', tracerConfig: topOnly ? { onlyTopCall: true } : {} }));
  const failedDeployment = async (hash: string, top: CallFrame): Promise<CallFrame> => {
    if (!top.type.startsWith('CREATE') || top.to !== undefined) return top;
    const address = (await evm.getTransactionReceipt(hash))?.contractAddress;
    return typeof address === 'string' ? { ...top, to: address } : top;
  };
  return [
    defineMethod({ ...read, name: 'ots_traceTransaction', handler: async (a) => traceEntries(await failedDeployment(a.hash, await callTree(a.hash))) }),
    defineMethod({ ...read, name: 'ots_getInternalOperations', handler: async (a) => internalOperations(await callTree(a.hash)) }),
    defineMethod({ ...read, name: 'ots_getTransactionError', handler: async (a) => revertData(await callTree(a.hash, true)) }),
  ];
}
