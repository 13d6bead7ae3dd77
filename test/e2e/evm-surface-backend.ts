/**
 * A small in-memory EvmBackend for the EVM surface tests: every accepted transaction is mined at once
 * in its own block, published as a CometBFT NewBlock event on the bus as the devnet does.
 */
import { AbiCoder, Transaction, id, keccak256, toUtf8Bytes, Wallet } from 'ethers';
import type { AddressTransactionsPage, BlockRef, ContractCreator, EvmBackend, LogFilter, SearchDirection, TraceConfig, TransactionArgs } from '../../src/backends/evm-backend';
import type { Json, JsonObject } from '../../src/rpc/json';
import type { EventBus } from '../../src/events';
import { ApplicationError } from '../../src/rpc/errors';

export const CHAIN_ID = 9000n;
export const DEV_KEYS = [
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
];
/** Calls to this address revert with Error("nope"). */
export const REVERTER = '0x00000000000000000000000000000000000000aa';
/** Calls to this address take 1.5 s. */
export const SLOW = '0x00000000000000000000000000000000000000cc';
/** Transactions to this address emit one log with TOPIC and the tx data. */
export const EMITTER = '0x00000000000000000000000000000000000000bb';
export const TOPIC = id('Ping()');
export const REVERT_DATA = '0x08c379a0' + AbiCoder.defaultAbiCoder().encode(['string'], ['nope']).slice(2);

const hex = (n: bigint | number): string => '0x' + n.toString(16);

interface Block {
  readonly number: bigint;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly txs: Transaction[];
  readonly logs: JsonObject[];
}

export class FakeEvmChain implements EvmBackend {
  readonly blocks: Block[] = [];
  readonly calls: Array<{ method: string; args: unknown[] }> = [];
  private readonly balances = new Map<string, bigint>();

  constructor(private readonly bus: EventBus) {
    for (const key of DEV_KEYS) this.balances.set(new Wallet(key).address.toLowerCase(), 10n ** 21n);
    this.mine([]);
  }

  /** Appends a block with these transactions and publishes its NewBlock event. */
  mine(txs: Transaction[]): Block {
    const number = BigInt(this.blocks.length + 1);
    const hash = keccak256(toUtf8Bytes(`block ${number}`));
    const parentHash = this.blocks.at(-1)?.hash ?? '0x' + '00'.repeat(32);
    const logs: JsonObject[] = [];
    txs.forEach((tx, i) => {
      if (tx.to?.toLowerCase() === EMITTER) {
        logs.push({
          address: EMITTER, topics: [TOPIC], data: tx.data, blockNumber: hex(number), transactionHash: tx.hash!,
          transactionIndex: hex(i), blockHash: hash, logIndex: hex(logs.length), removed: false,
        });
      }
    });
    const block = { number, hash, parentHash, timestamp: 1_700_000_000 + Number(number), txs, logs };
    this.blocks.push(block);
    this.bus.publish({
      type: 'NewBlock',
      data: { type: 'tendermint/event/NewBlock', value: { block: { header: { height: String(number) } }, block_id: {}, result_finalize_block: {} } },
      events: { 'tm.event': ['NewBlock'] },
    });
    return block;
  }

  private record(method: string, ...args: unknown[]): void {
    this.calls.push({ method, args });
  }

  private resolve(ref: BlockRef): Block | undefined {
    if (ref.kind === 'hash') return this.blocks.find((b) => b.hash === ref.hash);
    if (ref.kind === 'tag') return ref.tag === 'earliest' ? this.blocks[0] : this.blocks.at(-1);
    return this.blocks[Number(ref.number) - 1];
  }

  private txJson(tx: Transaction, block: Block | undefined, index: number): JsonObject {
    return {
      blockHash: block?.hash ?? null, blockNumber: block ? hex(block.number) : null, from: tx.from!.toLowerCase(), gas: hex(tx.gasLimit),
      gasPrice: hex(tx.gasPrice ?? tx.maxFeePerGas ?? 0n), hash: tx.hash!, input: tx.data, nonce: hex(tx.nonce), to: tx.to?.toLowerCase() ?? null,
      transactionIndex: block ? hex(index) : null, value: hex(tx.value), type: hex(tx.type ?? 0), chainId: hex(tx.chainId),
      ...(tx.type === 2 ? { maxFeePerGas: hex(tx.maxFeePerGas!), maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas!), accessList: [] } : {}),
      v: hex(tx.signature!.v), r: tx.signature!.r, s: tx.signature!.s,
    };
  }

  private blockJson(block: Block, full: boolean): JsonObject {
    return {
      baseFeePerGas: '0x3b9aca00', difficulty: '0x0', extraData: '0x', gasLimit: '0x1c9c380', gasUsed: hex(21000 * block.txs.length), hash: block.hash,
      logsBloom: '0x' + '00'.repeat(256), miner: '0x' + '11'.repeat(20), mixHash: '0x' + '00'.repeat(32), nonce: '0x0000000000000000',
      number: hex(block.number), parentHash: block.parentHash, receiptsRoot: '0x' + '22'.repeat(32), sha3Uncles: '0x' + '33'.repeat(32), size: '0x100',
      stateRoot: '0x' + '44'.repeat(32), timestamp: hex(block.timestamp), totalDifficulty: '0x0',
      transactions: block.txs.map((tx, i) => (full ? this.txJson(tx, block, i) : tx.hash!)), transactionsRoot: '0x' + '55'.repeat(32), uncles: [],
    };
  }

  private findTx(hash: string): { tx: Transaction; block: Block; index: number } | undefined {
    for (const block of this.blocks) {
      const index = block.txs.findIndex((tx) => tx.hash === hash);
      if (index >= 0) return { tx: block.txs[index], block, index };
    }
    return undefined;
  }

  async chainId(): Promise<bigint> { return CHAIN_ID; }
  async networkId(): Promise<string> { return String(CHAIN_ID); }
  async clientVersion(): Promise<string> { return 'rpc-gateway/test'; }
  async netInfo() { return { listening: true, peerCount: 0 }; }
  async blockNumber(): Promise<bigint> { return BigInt(this.blocks.length); }
  async syncing(): Promise<false> { return false; }
  async gasPrice(): Promise<bigint> { return 1_000_000_000n; }
  async maxPriorityFeePerGas(): Promise<bigint> { return 1n; }
  async feeHistory(blockCount: bigint, lastBlock: BlockRef, percentiles: readonly number[]): Promise<JsonObject> {
    this.record('feeHistory', blockCount, lastBlock, percentiles);
    return { oldestBlock: '0x1', baseFeePerGas: ['0x3b9aca00', '0x3b9aca00'], gasUsedRatio: [0] };
  }
  async coinbase(): Promise<string> { return '0x' + '11'.repeat(20); }
  async getBalance(address: string, block: BlockRef): Promise<bigint> {
    this.record('getBalance', address, block);
    return this.balances.get(address) ?? 0n;
  }
  async getStorageAt(address: string, slot: string, block: BlockRef): Promise<string> {
    this.record('getStorageAt', address, slot, block);
    return '0x' + '00'.repeat(32);
  }
  async getTransactionCount(address: string): Promise<bigint> {
    return BigInt(this.blocks.flatMap((b) => b.txs).filter((tx) => tx.from?.toLowerCase() === address).length);
  }
  async getCode(): Promise<string> { return '0x6001'; }
  async getProof(address: string, storageKeys: readonly string[]): Promise<JsonObject> {
    return { address, accountProof: [], balance: '0x0', codeHash: '0x' + '00'.repeat(32), nonce: '0x0', storageHash: '0x' + '00'.repeat(32),
      storageProof: storageKeys.map((key) => ({ key, value: '0x0', proof: [] })) };
  }
  async call(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<string> {
    this.record('call', args, block, options);
    if (args.to === REVERTER) throw new ApplicationError('execution reverted: nope', 3, REVERT_DATA);
    if (args.to === SLOW) await new Promise((resolve) => setTimeout(resolve, 1500));
    return '0x' + '00'.repeat(31) + '2a';
  }
  async estimateGas(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<bigint> {
    this.record('estimateGas', args, block, options);
    return 21_000n;
  }
  async createAccessList(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<JsonObject> {
    this.record('createAccessList', args, block, options);
    return { accessList: [], gasUsed: '0x5208' };
  }
  async blobBaseFee(): Promise<bigint> {
    return 1n;
  }
  async sendRawTransaction(raw: Uint8Array): Promise<string> {
    let tx: Transaction;
    try {
      tx = Transaction.from('0x' + Buffer.from(raw).toString('hex'));
    } catch {
      throw new ApplicationError('rlp: expected input list for types.LegacyTx');
    }
    this.mine([tx]);
    return tx.hash!;
  }
  async getBlockByNumber(ref: BlockRef, full: boolean): Promise<JsonObject | null> {
    const block = this.resolve(ref);
    return block ? this.blockJson(block, full) : null;
  }
  async getBlockByHash(hash: string, full: boolean): Promise<JsonObject | null> {
    return this.getBlockByNumber({ kind: 'hash', hash, requireCanonical: false }, full);
  }
  async getBlockTransactionCount(ref: BlockRef): Promise<bigint | null> {
    const block = this.resolve(ref);
    return block ? BigInt(block.txs.length) : null;
  }
  async getTransactionByHash(hash: string): Promise<JsonObject | null> {
    const found = this.findTx(hash);
    return found ? this.txJson(found.tx, found.block, found.index) : null;
  }
  async getTransactionByBlockAndIndex(ref: BlockRef, index: bigint): Promise<JsonObject | null> {
    const block = this.resolve(ref);
    const tx = block?.txs[Number(index)];
    return block && tx ? this.txJson(tx, block, Number(index)) : null;
  }
  async getTransactionReceipt(hash: string): Promise<JsonObject | null> {
    const found = this.findTx(hash);
    if (!found) return null;
    const { tx, block, index } = found;
    return {
      blockHash: block.hash, blockNumber: hex(block.number), contractAddress: null, cumulativeGasUsed: '0x5208', from: tx.from!.toLowerCase(),
      gasUsed: '0x5208', logs: block.logs.filter((l) => l.transactionHash === hash), logsBloom: '0x' + '00'.repeat(256), status: '0x1',
      to: tx.to?.toLowerCase() ?? null, transactionHash: hash, transactionIndex: hex(index), type: hex(tx.type ?? 0), effectiveGasPrice: '0x3b9aca00',
    };
  }
  async getBlockReceipts(ref: BlockRef): Promise<JsonObject[] | null> {
    const block = this.resolve(ref);
    return block ? Promise.all(block.txs.map(async (tx) => (await this.getTransactionReceipt(tx.hash!))!)) : null;
  }
  async getTransactionLogs(hash: string): Promise<JsonObject[] | null> {
    return (await this.getTransactionReceipt(hash))?.logs as JsonObject[] | null;
  }
  async getLogs(filter: LogFilter, caps: { blockRange: number; logs: number }): Promise<JsonObject[]> {
    const head = BigInt(this.blocks.length);
    const at = (ref: BlockRef | undefined): bigint => (!ref ? head : ref.kind === 'number' ? ref.number : ref.kind === 'tag' && ref.tag === 'earliest' ? 1n : head);
    const from = filter.blockHash ? undefined : at(filter.fromBlock);
    const to = filter.blockHash ? undefined : at(filter.toBlock);
    if (from !== undefined && to !== undefined && to - from > BigInt(caps.blockRange)) throw new ApplicationError(`maximum [from, to] blocks distance: ${caps.blockRange}`);
    const logs = this.blocks
      .filter((b) => (filter.blockHash ? b.hash === filter.blockHash : b.number >= from! && b.number <= to!))
      .flatMap((b) => b.logs)
      .filter((l) => !filter.address?.length || filter.address.includes(l.address as string));
    if (logs.length > caps.logs) throw new ApplicationError(`query returned more than ${caps.logs} results`);
    return logs;
  }
  async txpoolContent(): Promise<JsonObject> { return { pending: {}, queued: {} }; }
  async txpoolContentFrom(): Promise<JsonObject> { return { pending: {}, queued: {} }; }
  async txpoolInspect(): Promise<JsonObject> { return { pending: {}, queued: {} }; }
  async txpoolStatus(): Promise<JsonObject> { return { pending: '0x0', queued: '0x0' }; }
  async traceTransaction(hash: string, config: TraceConfig): Promise<Json> {
    this.record('traceTransaction', hash, config);
    return { gas: 21000, failed: false, returnValue: '', structLogs: [] };
  }
  async traceBlock(block: BlockRef, config: TraceConfig): Promise<Json> {
    this.record('traceBlock', block, config);
    return [];
  }
  async traceCall(args: TransactionArgs, block: BlockRef, config: TraceConfig): Promise<Json> {
    this.record('traceCall', args, block, config);
    return { gas: 21000, failed: false, returnValue: '', structLogs: [] };
  }
  /** The fake keeps no address index: every history is empty. */
  async searchAddressTransactions(address: string, fromBlock: bigint, direction: SearchDirection, pageSize: number): Promise<AddressTransactionsPage> {
    this.record('searchAddressTransactions', address, fromBlock, direction, pageSize);
    return { hashes: [], firstPage: true, lastPage: true };
  }
  async transactionBySenderAndNonce(sender: string, nonce: bigint): Promise<string | null> {
    this.record('transactionBySenderAndNonce', sender, nonce);
    return null;
  }
  async contractCreator(address: string): Promise<ContractCreator | null> {
    this.record('contractCreator', address);
    return null;
  }
  async devAccountKeys(): Promise<Uint8Array[]> {
    return DEV_KEYS.map((k) => Buffer.from(k.slice(2), 'hex'));
  }
}
