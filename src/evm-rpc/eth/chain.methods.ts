import { Inject, Injectable } from '@nestjs/common';
import { getAddress } from 'ethers';
import { ApplicationError } from '../../rpc/errors';
import type { Invoker } from '../../rpc/invoker';
import { defineMethod, IMMUTABLE, LATEST, param, returns, type AnyMethod } from '../../rpc/method';
import type { Json, JsonObject } from '../../rpc/json';
import { INVOKER, type MethodSource } from '../../rpc/registration';
import { cacheAt, FOUND, foundAt, heightAt } from '../block-rules';
import * as c from '../codec/codecs';
import { toQuantity } from '../codec/hex';
import type { Quantity } from '../evm-types';
import { MinerSettings } from '../miner/miner-settings';
import { eth_getBlockByHash, eth_getBlockByNumber } from './blocks.methods';

/** eth_protocolVersion in Evmos: eth/65. */
const PROTOCOL_VERSION = '0x41';

const read = { group: 'eth', idempotent: true } as const;

export const eth_chainId = defineMethod({ ...read, name: 'eth_chainId', params: [], cache: () => IMMUTABLE, result: returns<Quantity>() });
export const eth_blockNumber = defineMethod({ ...read, name: 'eth_blockNumber', params: [], result: returns<Quantity>() });
export const eth_syncing = defineMethod({ ...read, name: 'eth_syncing', params: [], result: returns<false | JsonObject>() });
/** The node's suggestion; the served method raises it to the miner_setGasPrice floor. */
export const eth_gasPrice = defineMethod({ ...read, name: 'eth_gasPrice', params: [], cache: () => LATEST, result: returns<Quantity>() });
export const eth_maxPriorityFeePerGas = defineMethod({ ...read, name: 'eth_maxPriorityFeePerGas', params: [], cache: () => LATEST, result: returns<Quantity>() });
export const eth_blobBaseFee = defineMethod({ ...read, name: 'eth_blobBaseFee', params: [], cache: () => LATEST, result: returns<Quantity>() });
export const eth_feeHistory = defineMethod({
  ...read,
  name: 'eth_feeHistory',
  params: [param('blockCount', c.decimalOrHex), param('lastBlock', c.blockNumber), param('rewardPercentiles', c.floats)],
  cache: (a) => cacheAt(a.lastBlock),
  height: (a) => heightAt(a.lastBlock),
  prepare: (a, { config }) => {
    const cap = config.jsonRpc['feehistory-cap'];
    if (a.blockCount > BigInt(cap)) throw new ApplicationError(`FeeHistory user block count ${a.blockCount} higher than ${cap}`);
    return a;
  },
  result: returns<JsonObject>(),
});
/** The node's coinbase; the served method answers the miner_setEtherbase address instead once one is set. */
export const eth_coinbase = defineMethod({ ...read, name: 'eth_coinbase', params: [], cache: () => LATEST, result: returns<string>() });

/** The chain-level part of eth: ids, head, fees, syncing, mining and (never present) uncles. */
@Injectable()
export class EthChainMethods implements MethodSource {
  constructor(
    @Inject(INVOKER.evm) private readonly evm: Invoker,
    private readonly miner: MinerSettings,
  ) {}

  methods(): AnyMethod[] {
    const evm = this.evm;
    const miner = this.miner;
    const noUncle = (found: Json) => (found === null ? null : '0x0');
    return [
      defineMethod({ ...read, name: 'eth_protocolVersion', params: [], handler: () => PROTOCOL_VERSION }),
      eth_chainId,
      eth_blockNumber,
      eth_syncing,
      { ...eth_gasPrice, finish: (price: Quantity) => (BigInt(price) >= miner.minGasPrice ? price : toQuantity(miner.minGasPrice)) },
      eth_maxPriorityFeePerGas,
      eth_blobBaseFee,
      eth_feeHistory,
      { ...eth_coinbase, finish: (coinbase: string) => getAddress(miner.etherbase ?? coinbase) },
      defineMethod({ ...read, name: 'eth_hashrate', params: [], handler: () => '0x0' }),
      defineMethod({ ...read, name: 'eth_mining', params: [], handler: () => false }),
      defineMethod({ ...read, name: 'eth_getUncleByBlockHashAndIndex', params: [param('hash', c.hash), param('index', c.uint)], handler: () => null }),
      defineMethod({ ...read, name: 'eth_getUncleByBlockNumberAndIndex', params: [param('block', c.blockNumber), param('index', c.uint)], handler: () => null }),
      defineMethod({
        ...read,
        name: 'eth_getUncleCountByBlockHash',
        params: [param('hash', c.hash)],
        cache: () => FOUND,
        handler: async (a, ctx) => noUncle(await evm.invoke(eth_getBlockByHash, { hash: a.hash, fullTransactions: false }, ctx)),
      }),
      defineMethod({
        ...read,
        name: 'eth_getUncleCountByBlockNumber',
        params: [param('block', c.blockNumber)],
        cache: (a) => foundAt(a.block),
        height: (a) => heightAt(a.block),
        handler: async (a, ctx) => noUncle(await evm.invoke(eth_getBlockByNumber, { block: a.block, fullTransactions: false }, ctx)),
      }),
    ];
  }
}
