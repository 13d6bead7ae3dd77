import { Inject, Injectable } from '@nestjs/common';
import { getAddress } from 'ethers';
import { EVM_BACKEND, type BlockRef, type EvmBackend } from '../../backends/evm-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import { defineMethod, IMMUTABLE, LATEST, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import { cacheAt, FOUND, foundAt, heightAt } from '../block-rules';
import * as c from '../codec/codecs';
import { toQuantity } from '../codec/hex';
import { MinerSettings } from '../miner/miner-settings';

/** eth_protocolVersion in Evmos: eth/65. */
const PROTOCOL_VERSION = '0x41';

/** The chain-level part of eth: ids, head, fees, syncing, mining and (never present) uncles. */
@Injectable()
export class EthChainMethods implements MethodSource {
  constructor(
    @Inject(EVM_BACKEND) private readonly b: EvmBackend,
    private readonly config: GatewayConfigService,
    private readonly miner: MinerSettings,
  ) {}

  methods(): AnyMethod[] {
    const b = this.b;
    const read = { group: 'eth', idempotent: true } as const;
    return [
      defineMethod({ ...read, name: 'eth_protocolVersion', params: [], handler: () => PROTOCOL_VERSION }),
      defineMethod({ ...read, name: 'eth_chainId', params: [], forward: true, cache: () => IMMUTABLE, handler: async () => toQuantity(await b.chainId()) }),
      defineMethod({ ...read, name: 'eth_blockNumber', params: [], forward: true, handler: async () => toQuantity(await b.blockNumber()) }),
      defineMethod({ ...read, name: 'eth_syncing', params: [], forward: true, handler: () => b.syncing() }),
      // Not forwarded: the answer is raised to the miner_setGasPrice floor.
      defineMethod({ ...read, name: 'eth_gasPrice', params: [], cache: () => LATEST, handler: () => this.gasPrice() }),
      defineMethod({
        ...read,
        name: 'eth_maxPriorityFeePerGas',
        params: [],
        forward: true,
        cache: () => LATEST,
        handler: async () => toQuantity(await b.maxPriorityFeePerGas()),
      }),
      defineMethod({ ...read, name: 'eth_blobBaseFee', params: [], forward: true, cache: () => LATEST, handler: async () => toQuantity(await b.blobBaseFee()) }),
      defineMethod({
        ...read,
        name: 'eth_feeHistory',
        params: [param('blockCount', c.decimalOrHex), param('lastBlock', c.blockNumber), param('rewardPercentiles', c.floats)],
        // Not forwarded: the block count is checked against `[json-rpc] feehistory-cap` first.
        cache: (a) => cacheAt(a.lastBlock),
        height: (a) => heightAt(a.lastBlock),
        handler: (a) => this.feeHistory(a.blockCount, a.lastBlock, a.rewardPercentiles),
      }),
      defineMethod({
        ...read,
        name: 'eth_coinbase',
        params: [],
        cache: () => LATEST,
        handler: async () => getAddress(this.miner.etherbase ?? (await b.coinbase())),
      }),
      defineMethod({ ...read, name: 'eth_hashrate', params: [], handler: () => '0x0' }),
      defineMethod({ ...read, name: 'eth_mining', params: [], handler: () => false }),
      defineMethod({ ...read, name: 'eth_getUncleByBlockHashAndIndex', params: [param('hash', c.hash), param('index', c.uint)], handler: () => null }),
      defineMethod({
        ...read,
        name: 'eth_getUncleByBlockNumberAndIndex',
        params: [param('block', c.blockNumber), param('index', c.uint)],
        handler: () => null,
      }),
      defineMethod({
        ...read,
        name: 'eth_getUncleCountByBlockHash',
        params: [param('hash', c.hash)],
        cache: () => FOUND,
        handler: async (a) => ((await b.getBlockByHash(a.hash, false)) ? '0x0' : null),
      }),
      defineMethod({
        ...read,
        name: 'eth_getUncleCountByBlockNumber',
        params: [param('block', c.blockNumber)],
        cache: (a) => foundAt(a.block),
        height: (a) => heightAt(a.block),
        handler: async (a) => ((await b.getBlockByNumber(a.block, false)) ? '0x0' : null),
      }),
    ];
  }

  private async gasPrice(): Promise<string> {
    const suggested = await this.b.gasPrice();
    return toQuantity(suggested > this.miner.minGasPrice ? suggested : this.miner.minGasPrice);
  }

  private feeHistory(blockCount: bigint, lastBlock: BlockRef, percentiles: number[]): Promise<unknown> {
    const cap = this.config.jsonRpc['feehistory-cap'];
    if (blockCount > BigInt(cap)) throw new ApplicationError(`FeeHistory user block count ${blockCount} higher than ${cap}`);
    return this.b.feeHistory(blockCount, lastBlock, percentiles);
  }
}
