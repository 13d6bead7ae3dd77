import type { BlockRef, EvmBackend } from '../../backends/evm-backend';
import type { JsonObject } from '../../rpc/json';

/** go-ethereum's header fields, in its order; a block object has them plus its body. */
const HEADER_FIELDS = [
  'parentHash', 'sha3Uncles', 'miner', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'logsBloom', 'difficulty', 'number',
  'gasLimit', 'gasUsed', 'timestamp', 'extraData', 'mixHash', 'nonce', 'baseFeePerGas', 'withdrawalsRoot', 'blobGasUsed',
  'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash', 'hash',
];

/** Both caps off: the feed reads one block's logs, whatever the query limits of clients are. */
const UNCAPPED = { blockRange: Number.MAX_SAFE_INTEGER, logs: Number.MAX_SAFE_INTEGER };

/**
 * A committed block seen as EVM data, fetched from the backend on first use and shared by every
 * filter and subscription that asks (one backend read per kind of data per block).
 */
export class BlockEvents {
  private block?: Promise<JsonObject | null>;
  private blockLogs?: Promise<JsonObject[]>;

  constructor(
    readonly height: bigint,
    private readonly backend: EvmBackend,
  ) {}

  private get ref(): BlockRef {
    return { kind: 'number', number: this.height };
  }

  evmBlock(): Promise<JsonObject | null> {
    this.block ??= this.backend.getBlockByNumber(this.ref, false);
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
    return ((await this.evmBlock())?.hash as string | undefined) ?? null;
  }

  /** The hashes of the block's EVM transactions. */
  async transactionHashes(): Promise<string[]> {
    return ((await this.evmBlock())?.transactions as string[] | undefined) ?? [];
  }

  logs(): Promise<JsonObject[]> {
    this.blockLogs ??= this.backend.getLogs({ fromBlock: this.ref, toBlock: this.ref }, UNCAPPED);
    return this.blockLogs;
  }
}
