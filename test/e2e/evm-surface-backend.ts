/**
 * A small in-memory EVM chain for the EVM surface tests: every accepted transaction is mined at once
 * in its own block, published as a CometBFT NewBlock event on the bus as the devnet does. It answers
 * the EVM method definitions nodes answer through a HandlerTable, as the devnet's evm-handlers.ts does:
 * arguments prepared by their definitions, results as wire JSON.
 */
import { AbiCoder, Transaction, id, keccak256, toUtf8Bytes, Wallet } from 'ethers';
import type { BackendServices } from '../../src/backends/backend-services';
import { HandlerTable } from '../../src/backends/embedded/handler-table';
import type { GatewayConfigService } from '../../src/config/gateway-config.service';
import type { EventBus } from '../../src/events';
import { toQuantity } from '../../src/evm-rpc/codec/hex';
import { decodeStorageSlot } from '../../src/evm-rpc/codec/storage-slot';
import { toBackendArgs } from '../../src/evm-rpc/codec/transaction-args';
import * as d from '../../src/evm-rpc/definitions';
import type { BlockRef, LogFilter, RpcBlock, RpcLog, RpcReceipt, RpcTransaction } from '../../src/evm-rpc/evm-types';
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

const hex = toQuantity;
const LATEST: BlockRef = { kind: 'tag', tag: 'latest' };
const PENDING: BlockRef = { kind: 'tag', tag: 'pending' };
const byHash = (hash: string): BlockRef => ({ kind: 'hash', hash, requireCanonical: false });
const EMPTY_POOL = () => ({ pending: {}, queued: {} });
const STRUCT_LOGS = () => ({ gas: 21000, failed: false, returnValue: '', structLogs: [] });

interface Block {
  readonly number: bigint;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly txs: Transaction[];
  readonly logs: RpcLog[];
}

export class FakeEvmChain {
  readonly blocks: Block[] = [];
  /** What the handlers were asked, named as the devnet's operations, with the arguments they got. */
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
    const logs: RpcLog[] = [];
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

  /** The private keys of the funded dev accounts, as BACKEND_SERVICES hands them out. */
  devAccountKeys(): Uint8Array[] {
    return DEV_KEYS.map((k) => Uint8Array.from(Buffer.from(k.slice(2), 'hex')));
  }

  /** BACKEND_SERVICES of the fake: no events to feed (it publishes every block), always healthy and ready, no pools, no caches. */
  services(): BackendServices {
    return {
      feedEvents: async () => () => undefined,
      health: async () => ({}),
      ready: async () => true,
      devAccountKeys: () => this.devAccountKeys(),
      pools: () => ({}),
      caches: () => ({}),
    };
  }

  /**
   * How the fake answers each definition the devnet answers (evm-handlers.ts), arguments prepared by
   * the definition; `[json-rpc]` gives the gas cap and evm-timeout of executions, and the log caps.
   */
  handlers(config: GatewayConfigService): HandlerTable {
    const limits = () => ({ gasCap: BigInt(config.jsonRpc['gas-cap']), timeoutMs: config.jsonRpc['evm-timeout'] });
    const count = (ref: BlockRef) => {
      const block = this.resolve(ref);
      return block ? hex(block.txs.length) : null;
    };
    /** A trace: the struct logger's answer for a transaction or a call, none for a block. */
    const trace = <T>(result: T, method: string, ...args: unknown[]): T => {
      this.record(method, ...args);
      return result;
    };
    return new HandlerTable()
      .on(d.eth_chainId, () => hex(CHAIN_ID))
      .on(d.eth_blockNumber, () => hex(this.blocks.length))
      .on(d.eth_syncing, () => false as const)
      .on(d.eth_gasPrice, () => hex(1_000_000_000n))
      .on(d.eth_maxPriorityFeePerGas, () => hex(1n))
      .on(d.eth_blobBaseFee, () => hex(1n))
      .on(d.eth_feeHistory, (a) => {
        this.record('feeHistory', a.blockCount, a.lastBlock, a.rewardPercentiles);
        return { oldestBlock: '0x1', baseFeePerGas: ['0x3b9aca00', '0x3b9aca00'], gasUsedRatio: [0] };
      })
      .on(d.eth_coinbase, () => '0x' + '11'.repeat(20))
      .on(d.eth_getBalance, (a) => {
        const block = a.block ?? LATEST;
        this.record('getBalance', a.address, block);
        return hex(this.balances.get(a.address) ?? 0n);
      })
      .on(d.eth_getStorageAt, (a) => {
        this.record('getStorageAt', a.address, decodeStorageSlot(a.slot), a.block ?? LATEST);
        return '0x' + '00'.repeat(32);
      })
      .on(d.eth_getTransactionCount, (a) => hex(this.blocks.flatMap((b) => b.txs).filter((tx) => tx.from?.toLowerCase() === a.address).length))
      .on(d.eth_getCode, () => '0x6001')
      .on(d.eth_getProof, (a) => ({
        address: a.address, accountProof: [], balance: '0x0', codeHash: '0x' + '00'.repeat(32), nonce: '0x0', storageHash: '0x' + '00'.repeat(32),
        storageProof: a.storageKeys.map(decodeStorageSlot).map((key) => ({ key, value: '0x0', proof: [] })),
      }))
      .on(d.eth_call, async (a) => {
        const args = toBackendArgs(a.args);
        this.record('call', args, a.block ?? LATEST, limits());
        if (args.to === REVERTER) throw new ApplicationError('execution reverted: nope', 3, REVERT_DATA);
        if (args.to === SLOW) await new Promise((resolve) => setTimeout(resolve, 1500));
        return '0x' + '00'.repeat(31) + '2a';
      })
      .on(d.eth_estimateGas, (a) => {
        this.record('estimateGas', toBackendArgs(a.args), a.block ?? PENDING, limits());
        return hex(21_000n);
      })
      .on(d.eth_createAccessList, (a) => {
        this.record('createAccessList', toBackendArgs(a.args), a.block ?? LATEST, limits());
        return { accessList: [], gasUsed: '0x5208' };
      })
      .on(d.eth_sendRawTransaction, (a) => {
        let tx: Transaction;
        try {
          tx = Transaction.from(a.data);
        } catch {
          throw new ApplicationError('rlp: expected input list for types.LegacyTx');
        }
        this.mine([tx]);
        return tx.hash!;
      })
      .on(d.eth_getBlockByNumber, (a) => this.blockJson(this.resolve(a.block), a.fullTransactions))
      .on(d.eth_getBlockByHash, (a) => this.blockJson(this.resolve(byHash(a.hash)), a.fullTransactions))
      .on(d.eth_getBlockTransactionCountByNumber, (a) => count(a.block))
      .on(d.eth_getBlockTransactionCountByHash, (a) => count(byHash(a.hash)))
      .on(d.eth_getTransactionByHash, (a) => {
        const found = this.findTx(a.hash);
        return found ? this.txJson(found.tx, found.block, found.index) : null;
      })
      .on(d.eth_getTransactionByBlockNumberAndIndex, (a) => this.txAt(a.block, a.index))
      .on(d.eth_getTransactionByBlockHashAndIndex, (a) => this.txAt(byHash(a.hash), a.index))
      .on(d.eth_getTransactionReceipt, (a) => this.receipt(a.hash))
      .on(d.eth_getBlockReceipts, (a) => {
        const block = this.resolve(a.block);
        return block ? block.txs.map((tx) => this.receipt(tx.hash!)!) : null;
      })
      .on(d.eth_getLogs, (a) => this.logs(a.criteria, { blockRange: config.jsonRpc['block-range-cap'], logs: config.jsonRpc['logs-cap'] }))
      .on(d.txpool_content, EMPTY_POOL)
      .on(d.txpool_contentFrom, EMPTY_POOL)
      .on(d.txpool_inspect, EMPTY_POOL)
      .on(d.txpool_status, () => ({ pending: '0x0', queued: '0x0' }))
      .on(d.debug_traceTransaction, (a) => trace(STRUCT_LOGS(), 'traceTransaction', a.hash, a.config ?? {}))
      .on(d.debug_traceBlockByNumber, (a) => trace([], 'traceBlock', a.block, a.config ?? {}))
      .on(d.debug_traceBlockByHash, (a) => trace([], 'traceBlock', byHash(a.hash), a.config ?? {}))
      .on(d.debug_traceCall, (a) => trace(STRUCT_LOGS(), 'traceCall', toBackendArgs(a.args), a.block, a.config ?? {}))
      .on(d.net_version, () => String(CHAIN_ID))
      .on(d.net_listening, () => true)
      .on(d.net_peerCount, () => 0)
      .on(d.web3_clientVersion, () => 'rpc-gateway/test');
  }

  private record(method: string, ...args: unknown[]): void {
    this.calls.push({ method, args });
  }

  private resolve(ref: BlockRef): Block | undefined {
    if (ref.kind === 'hash') return this.blocks.find((b) => b.hash === ref.hash);
    if (ref.kind === 'tag') return ref.tag === 'earliest' ? this.blocks[0] : this.blocks.at(-1);
    return this.blocks[Number(ref.number) - 1];
  }

  private txJson(tx: Transaction, block: Block | undefined, index: number): RpcTransaction {
    return {
      blockHash: block?.hash ?? null, blockNumber: block ? hex(block.number) : null, from: tx.from!.toLowerCase(), gas: hex(tx.gasLimit),
      gasPrice: hex(tx.gasPrice ?? tx.maxFeePerGas ?? 0n), hash: tx.hash!, input: tx.data, nonce: hex(tx.nonce), to: tx.to?.toLowerCase() ?? null,
      transactionIndex: block ? hex(index) : null, value: hex(tx.value), type: hex(tx.type ?? 0), chainId: hex(tx.chainId),
      ...(tx.type === 2 ? { maxFeePerGas: hex(tx.maxFeePerGas!), maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas!), accessList: [] } : {}),
      v: hex(tx.signature!.v), r: tx.signature!.r, s: tx.signature!.s,
    };
  }

  private blockJson(block: Block | undefined, full: boolean): RpcBlock | null {
    if (!block) return null;
    return {
      baseFeePerGas: '0x3b9aca00', difficulty: '0x0', extraData: '0x', gasLimit: '0x1c9c380', gasUsed: hex(21000 * block.txs.length), hash: block.hash,
      logsBloom: '0x' + '00'.repeat(256), miner: '0x' + '11'.repeat(20), mixHash: '0x' + '00'.repeat(32), nonce: '0x0000000000000000',
      number: hex(block.number), parentHash: block.parentHash, receiptsRoot: '0x' + '22'.repeat(32), sha3Uncles: '0x' + '33'.repeat(32), size: '0x100',
      stateRoot: '0x' + '44'.repeat(32), timestamp: hex(block.timestamp), totalDifficulty: '0x0',
      transactions: full ? block.txs.map((tx, i) => this.txJson(tx, block, i)) : block.txs.map((tx) => tx.hash!),
      transactionsRoot: '0x' + '55'.repeat(32), uncles: [],
    };
  }

  private findTx(hash: string): { tx: Transaction; block: Block; index: number } | undefined {
    for (const block of this.blocks) {
      const index = block.txs.findIndex((tx) => tx.hash === hash);
      if (index >= 0) return { tx: block.txs[index], block, index };
    }
    return undefined;
  }

  private txAt(ref: BlockRef, index: bigint): RpcTransaction | null {
    const block = this.resolve(ref);
    const tx = block?.txs[Number(index)];
    return block && tx ? this.txJson(tx, block, Number(index)) : null;
  }

  private receipt(hash: string): RpcReceipt | null {
    const found = this.findTx(hash);
    if (!found) return null;
    const { tx, block, index } = found;
    return {
      blockHash: block.hash, blockNumber: hex(block.number), contractAddress: null, cumulativeGasUsed: '0x5208', from: tx.from!.toLowerCase(),
      gasUsed: '0x5208', logs: block.logs.filter((l) => l.transactionHash === hash), logsBloom: '0x' + '00'.repeat(256), status: '0x1',
      to: tx.to?.toLowerCase() ?? null, transactionHash: hash, transactionIndex: hex(index), type: hex(tx.type ?? 0), effectiveGasPrice: '0x3b9aca00',
    };
  }

  private logs(filter: LogFilter, caps: { blockRange: number; logs: number }): RpcLog[] {
    const head = BigInt(this.blocks.length);
    const at = (ref: BlockRef | undefined): bigint => (!ref ? head : ref.kind === 'number' ? ref.number : ref.kind === 'tag' && ref.tag === 'earliest' ? 1n : head);
    const from = filter.blockHash ? undefined : at(filter.fromBlock);
    const to = filter.blockHash ? undefined : at(filter.toBlock);
    if (from !== undefined && to !== undefined && to - from > BigInt(caps.blockRange)) throw new ApplicationError(`maximum [from, to] blocks distance: ${caps.blockRange}`);
    const logs = this.blocks
      .filter((b) => (filter.blockHash ? b.hash === filter.blockHash : b.number >= from! && b.number <= to!))
      .flatMap((b) => b.logs)
      .filter((l) => !filter.address?.length || filter.address.includes(l.address));
    if (logs.length > caps.logs) throw new ApplicationError(`query returned more than ${caps.logs} results`);
    return logs;
  }
}
