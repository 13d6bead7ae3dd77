import type { Invoker } from '../../rpc/invoker';
import type { JsonObject } from '../../rpc/json';
import { eth_getBlockByNumber } from '../eth/blocks.methods';
import type { BlockRef, RpcBlock, RpcLog } from '../evm-types';
import { eth_getLogs } from './get-logs';

/** go-ethereum's header fields, in its order; a block object has them plus its body. */
const HEADER_FIELDS = [
  'parentHash', 'sha3Uncles', 'miner', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'logsBloom', 'difficulty', 'number',
  'gasLimit', 'gasUsed', 'timestamp', 'extraData', 'mixHash', 'nonce', 'baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed',
  'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash', 'hash',
];

/**
 * A committed block seen as EVM data, fetched from the backend on first use and shared by every
 * filter and subscription that asks (one backend read per kind of data per block).
 */
export class BlockEvents {
  private block?: Promise<RpcBlock | null>;
  private blockLogs?: Promise<RpcLog[]>;

  constructor(
    readonly height: bigint,
    private readonly evm: Invoker,
  ) {}

  private get ref(): BlockRef {
    return { kind: 'number', number: this.height };
  }

  evmBlock(): Promise<RpcBlock | null> {
    this.block ??= this.evm.invoke(eth_getBlockByNumber, { block: this.ref, fullTransactions: false });
    return this.block;
  }

  /** The newHeads payload: the block's header fields; its hash is the block hash. */
  async header(): Promise<JsonObject | null> {
    const block = await this.evmBlock();
    if (!block) return null;
    const header: JsonObject = {};
    for (const field of HEADER_FIELDS) if (field in block) header[field] = block[field];
    return header;
  }

  async hash(): Promise<string | null> {
    return (await this.evmBlock())?.hash ?? null;
  }

  /** The hashes of the block's EVM transactions. */
  async transactionHashes(): Promise<string[]> {
    return ((await this.evmBlock())?.transactions as string[] | undefined) ?? [];
  }

  logs(): Promise<RpcLog[]> {
    this.blockLogs ??= this.evm.invoke(eth_getLogs, { criteria: { fromBlock: this.ref, toBlock: this.ref } });
    return this.blockLogs;
  }
}
