import { Inject, Injectable } from '@nestjs/common';
import { getAddress } from 'ethers';
import { EVM_BACKEND, type BlockRef, type EvmBackend } from '../../backends/evm-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import type { MethodSpec } from '../../rpc/method-spec';
import { toQuantity } from '../codec/hex';
import { param, type MethodTable } from '../core/evm-method';
import { MinerSettings } from '../miner/miner-settings';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/** eth_protocolVersion in Evmos: eth/65. */
const PROTOCOL_VERSION = '0x41';

/** The chain-level part of eth: ids, head, fees, syncing, mining and (never present) uncles. */
@Injectable()
export class EthChainMethods implements MethodTable {
  constructor(
    @Inject(EVM_BACKEND) private readonly b: EvmBackend,
    private readonly config: GatewayConfigService,
    private readonly miner: MinerSettings,
  ) {}

  methods(): MethodSpec[] {
    const b = this.b;
    const read = { group: 'eth', idempotent: true };
    return [
      { ...read, name: 'eth_protocolVersion', params: [], handler: () => PROTOCOL_VERSION },
      { ...read, name: 'eth_chainId', params: [], handler: async () => toQuantity(await b.chainId()) },
      { ...read, name: 'eth_blockNumber', params: [], handler: async () => toQuantity(await b.blockNumber()) },
      { ...read, name: 'eth_syncing', params: [], handler: () => b.syncing() },
      { ...read, name: 'eth_gasPrice', params: [], handler: () => this.gasPrice() },
      { ...read, name: 'eth_maxPriorityFeePerGas', params: [], handler: async () => toQuantity(await b.maxPriorityFeePerGas()) },
      {
        ...read,
        name: 'eth_feeHistory',
        params: [param('blockCount', 'decimalOrHex'), param('lastBlock', 'blockNumber'), param('rewardPercentiles', 'floats')],
        handler: (a: A) => this.feeHistory(a.blockCount, a.lastBlock, a.rewardPercentiles),
      },
      { ...read, name: 'eth_coinbase', params: [], handler: async () => getAddress(this.miner.etherbase ?? (await b.coinbase())) },
      { ...read, name: 'eth_hashrate', params: [], handler: () => '0x0' },
      { ...read, name: 'eth_mining', params: [], handler: () => false },
      { ...read, name: 'eth_getUncleByBlockHashAndIndex', params: [param('hash', 'hash'), param('index', 'uint')], handler: () => null },
      { ...read, name: 'eth_getUncleByBlockNumberAndIndex', params: [param('block', 'blockNumber'), param('index', 'uint')], handler: () => null },
      {
        ...read,
        name: 'eth_getUncleCountByBlockHash',
        params: [param('hash', 'hash')],
        handler: async (a: A) => ((await b.getBlockByHash(a.hash, false)) ? '0x0' : null),
      },
      {
        ...read,
        name: 'eth_getUncleCountByBlockNumber',
        params: [param('block', 'blockNumber')],
        handler: async (a: A) => ((await b.getBlockByNumber(a.block, false)) ? '0x0' : null),
      },
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
