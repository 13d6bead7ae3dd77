/**
 * erigon_getHeaderByNumber: the one method of erigon's own namespace Otterscan needs. Otterscan
 * probes it (with `latest`) before it accepts a node, and polls it for the latest block. The answer
 * is the header as go-ethereum and erigon write one (types.Header: its fields in their order, then
 * `hash`); a block the node does not have is an error, `block header not found: <number>`.
 */
import { ApplicationError, cacheAt, defineMethod, evmMethods, heightAt, param, type AnyMethod, type JsonObject, type PluginInvoker } from 'rpc-gateway/plugin-api';
import { blockNumber } from './params';

const HEADER_FIELDS = [
  'parentHash',
  'sha3Uncles',
  'miner',
  'stateRoot',
  'transactionsRoot',
  'receiptsRoot',
  'logsBloom',
  'difficulty',
  'number',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'extraData',
  'mixHash',
  'nonce',
  'baseFeePerGas',
  'withdrawalsRoot',
  'blobGasUsed',
  'excessBlobGas',
  'parentBeaconBlockRoot',
  'requestsHash',
  'hash',
] as const;

export function erigonMethods(evm: PluginInvoker): AnyMethod[] {
  return [
    defineMethod({
      group: 'erigon',
      name: 'erigon_getHeaderByNumber',
      params: [param('number', blockNumber)],
      idempotent: true,
      forward: true,
      cache: (a) => cacheAt(a.number),
      height: (a) => heightAt(a.number),
      handler: async (a, ctx) => {
        const block = await evm.invoke(evmMethods.eth_getBlockByNumber, { block: a.number, fullTransactions: false }, ctx);
        if (block === null) throw new ApplicationError(`block header not found: ${a.number.kind === 'number' ? a.number.number : -1}`);
        const header: JsonObject = {};
        for (const field of HEADER_FIELDS) if (block[field] !== undefined) header[field] = block[field];
        return header;
      },
    }),
  ];
}
