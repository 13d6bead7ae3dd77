/**
 * The embedded devnet as an EVM node: what its EVM RPC answers (evm-handlers.ts) from the devnet's
 * EVM application (state, receipts, fee market), its node blocks and its mempool, in go-ethereum's and
 * Evmos's shapes and texts. It shares the devnet with the node RPC: one chain seen two ways.
 */
import { bytesToBigInt, createAddressFromString, setLengthLeft } from '@ethereumjs/util';
import { decodeEthTx, undecodableReason } from '../../devnet/app/evm/eth-tx';
import type { EvmApplication } from '../../devnet/app/evm/evm-application';
import { fromHex, hexData, quantity, toChecksumAddress, word } from '../../devnet/app/evm/hex';
import type { Devnet } from '../../devnet/devnet';
import { MempoolError } from '../../devnet/mempool/mempool';
import { ApplicationError } from '../../rpc/errors';
import type { BlockRef, LogFilter, TraceConfig, TransactionArgs } from '../../evm-rpc/evm-types';
import type { Json, JsonObject } from '../../rpc/json';
import { createAccessList } from './evm-query/access-list';
import { accountProof } from './evm-query/account-proof';
import { AddressHistory } from './evm-query/address-history';
import { CallRunner, type CallOptions } from './evm-query/call-runner';
import { ChainJson } from './evm-query/chain-json';
import { EvmChainView } from './evm-query/chain-view';
import { FeeOracle } from './evm-query/fee-oracle';
import { GasEstimator } from './evm-query/gas-estimator';
import { LogQuery, type LogCaps } from './evm-query/log-query';
import { TraceRunner, UNLIMITED, type TraceLimits } from './evm-query/trace-runner';
import { txJson } from './evm-query/tx-json';
import { TxPoolView } from './evm-query/txpool-view';

const CLIENT_VERSION = `rpc-gateway/embedded-devnet/${process.platform}-${process.arch}/node${process.versions.node}`;

export class DevnetEvm {
  private readonly evm: EvmApplication;
  private readonly chain: EvmChainView;
  private readonly json: ChainJson;
  private readonly calls: CallRunner;
  private readonly estimator: GasEstimator;
  private readonly fees: FeeOracle;
  private readonly logQuery: LogQuery;
  private readonly pool: TxPoolView;
  private readonly traces: TraceRunner;
  /** The address index Otterscan's methods read. */
  readonly history: AddressHistory;

  constructor(private readonly devnet: Devnet) {
    if (devnet.evm === undefined) throw new Error('the devnet runs no EVM application');
    this.evm = devnet.evm;
    this.chain = new EvmChainView(devnet, devnet.evm);
    this.json = new ChainJson(this.chain);
    this.calls = new CallRunner(this.chain);
    this.estimator = new GasEstimator(this.calls);
    this.fees = new FeeOracle(this.chain);
    this.logQuery = new LogQuery(this.chain);
    this.pool = new TxPoolView(this.chain);
    this.traces = new TraceRunner(this.chain, this.calls);
    this.history = new AddressHistory(this.chain);
  }

  async chainId(): Promise<bigint> {
    return this.evm.params.chainId;
  }

  async networkId(): Promise<string> {
    return this.evm.params.chainId.toString();
  }

  async clientVersion(): Promise<string> {
    return CLIENT_VERSION;
  }

  /** The devnet has no p2p network: it listens, and has no peers. */
  async netInfo(): Promise<{ listening: boolean; peerCount: number }> {
    return { listening: true, peerCount: 0 };
  }

  async blockNumber(): Promise<bigint> {
    return this.devnet.latestHeight;
  }

  /** A follower catching up answers as Evmos does: its first and latest blocks. */
  async syncing(): Promise<false | JsonObject> {
    if (!this.devnet.catchingUp) return false;
    return { startingBlock: quantity(this.devnet.baseHeight), currentBlock: quantity(this.devnet.latestHeight) };
  }

  gasPrice(): Promise<bigint> {
    return this.fees.gasPrice();
  }

  maxPriorityFeePerGas(): Promise<bigint> {
    return this.fees.suggestTip();
  }

  feeHistory(blockCount: bigint, lastBlock: BlockRef, rewardPercentiles: readonly number[]): Promise<JsonObject> {
    return this.fees.feeHistory(blockCount, lastBlock, rewardPercentiles);
  }

  /** The validator's address (the 20-byte consensus address), which the blocks name as miner. */
  async coinbase(): Promise<string> {
    return toChecksumAddress(this.devnet.identity.validatorKey.address);
  }

  async getBalance(address: string, block: BlockRef): Promise<bigint> {
    const state = await this.chain.stateAt(block);
    return (await state.getAccount(createAddressFromString(address)))?.balance ?? 0n;
  }

  async getStorageAt(address: string, slot: string, block: BlockRef): Promise<string> {
    const state = await this.chain.stateAt(block);
    const value = await state.getStorage(createAddressFromString(address), setLengthLeft(fromHex(slot), 32));
    return word(bytesToBigInt(value));
  }

  /**
   * `pending` counts the sender's txs waiting in the mempool. What the mempool admitted is read before
   * the state: a block committed while the state is read empties the mempool, and the state read may
   * still be the one before that block; the larger of the two is the next nonce either way.
   */
  async getTransactionCount(address: string, block: BlockRef): Promise<bigint> {
    const admitted = block.kind === 'tag' && block.tag === 'pending' ? this.evm.pendingNonce(address.toLowerCase(), 0n) : 0n;
    const state = await this.chain.stateAt(block);
    const nonce = (await state.getAccount(createAddressFromString(address)))?.nonce ?? 0n;
    return admitted > nonce ? admitted : nonce;
  }

  async getCode(address: string, block: BlockRef): Promise<string> {
    const state = await this.chain.stateAt(block);
    return hexData(await state.getCode(createAddressFromString(address)));
  }

  async getProof(address: string, storageKeys: readonly string[], block: BlockRef): Promise<JsonObject> {
    return accountProof(await this.chain.stateAt(block), address, storageKeys);
  }

  call(args: TransactionArgs, block: BlockRef, options: CallOptions): Promise<string> {
    return this.calls.call(args, block, options);
  }

  estimateGas(args: TransactionArgs, block: BlockRef, options: CallOptions): Promise<bigint> {
    return this.estimator.estimate(args, block, options);
  }

  createAccessList(args: TransactionArgs, block: BlockRef, options: CallOptions): Promise<JsonObject> {
    return createAccessList(this.calls, args, block, options);
  }

  /** The devnet carries no blobs: the excess blob gas stays 0 and the blob base fee at its minimum, 1 wei. */
  async blobBaseFee(): Promise<bigint> {
    return 1n;
  }

  /** Admits the tx through the mempool, as broadcast_tx_sync does; refusals in go-ethereum's words. */
  async sendRawTransaction(raw: Uint8Array): Promise<string> {
    const decoded = decodeEthTx(raw, this.evm.common);
    if (decoded.kind === 'foreign') throw new ApplicationError(undecodableReason(raw));
    if (decoded.kind === 'refused') throw new ApplicationError(decoded.reason);
    let checked;
    try {
      checked = await this.devnet.intake.add(raw);
    } catch (err) {
      if (err instanceof MempoolError) throw new ApplicationError(mempoolRefusal(err.message, raw.length));
      throw err;
    }
    if (checked.code !== 0) throw new ApplicationError(checked.log);
    return hexData(decoded.tx.hash());
  }

  async getBlockByNumber(block: BlockRef, fullTransactions: boolean): Promise<JsonObject | null> {
    const height = await this.chain.heightOf(block);
    const found = height === undefined ? undefined : await this.chain.block(height);
    return found === undefined ? null : this.json.block(found, fullTransactions);
  }

  getBlockByHash(hash: string, fullTransactions: boolean): Promise<JsonObject | null> {
    return this.getBlockByNumber({ kind: 'hash', hash, requireCanonical: false }, fullTransactions);
  }

  async getBlockTransactionCount(block: BlockRef): Promise<bigint | null> {
    const height = await this.chain.heightOf(block);
    const found = height === undefined ? undefined : await this.chain.block(height);
    return found === undefined ? null : BigInt(found.record.txs.length);
  }

  /** A mined tx, or one waiting in the mempool (with null block fields). */
  async getTransactionByHash(hash: string): Promise<JsonObject | null> {
    const executed = await this.chain.executedTx(fromHex(hash));
    if (executed !== undefined) return this.json.transaction(executed);
    const pending = this.pool.pending().find(({ tx }) => hexData(tx.hash()) === hash.toLowerCase());
    return pending === undefined ? null : txJson(pending.tx, pending.from, this.evm.params.chainId, undefined);
  }

  async getTransactionByBlockAndIndex(block: BlockRef, index: bigint): Promise<JsonObject | null> {
    const height = await this.chain.heightOf(block);
    const found = height === undefined ? undefined : await this.chain.block(height);
    if (found === undefined || index < 0n || index >= BigInt(found.record.txs.length)) return null;
    const i = Number(index);
    const txs = await this.chain.transactionsOf(found);
    return this.json.transaction({ block: found, index: i, record: found.record.txs[i], tx: txs[i] });
  }

  async getTransactionReceipt(hash: string): Promise<JsonObject | null> {
    const executed = await this.chain.executedTx(fromHex(hash));
    return executed === undefined ? null : this.json.receipt(executed.block, executed.index);
  }

  async getBlockReceipts(block: BlockRef): Promise<JsonObject[] | null> {
    const height = await this.chain.heightOf(block);
    const found = height === undefined ? undefined : await this.chain.block(height);
    return found === undefined ? null : this.json.receipts(found);
  }

  getLogs(filter: LogFilter, caps: LogCaps, signal?: AbortSignal): Promise<JsonObject[]> {
    return this.logQuery.logs(filter, caps, signal);
  }

  async txpoolContent(): Promise<JsonObject> {
    return this.pool.content();
  }

  async txpoolContentFrom(address: string): Promise<JsonObject> {
    return this.pool.contentFrom(address);
  }

  async txpoolInspect(): Promise<JsonObject> {
    return this.pool.inspect();
  }

  async txpoolStatus(): Promise<JsonObject> {
    return this.pool.status();
  }

  traceTransaction(hash: string, config: TraceConfig, limits: TraceLimits = UNLIMITED): Promise<Json> {
    return this.traces.traceTransaction(hash, config, limits);
  }

  traceBlock(block: BlockRef, config: TraceConfig, limits: TraceLimits = UNLIMITED): Promise<Json> {
    return this.traces.traceBlock(block, config, limits);
  }

  traceCall(args: TransactionArgs, block: BlockRef, config: TraceConfig, options: CallOptions & Partial<TraceLimits>): Promise<Json> {
    return this.traces.traceCall(args, block, config, options);
  }
}

/** The mempool's admission refusals as go-ethereum's txpool words them. */
function mempoolRefusal(message: string, size: number): string {
  if (message === 'tx already exists in cache') return 'already known';
  if (message.startsWith('mempool is full')) return 'txpool is full';
  if (message.startsWith('Tx too large') || message.startsWith('tx pre check')) {
    const limit = /Max size is (\d+)|max: (\d+)/.exec(message);
    return `oversized data: transaction size ${size}, limit ${limit?.[1] ?? limit?.[2] ?? '?'}`;
  }
  return message;
}
