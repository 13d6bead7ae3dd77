/**
 * The EVM RPC over a pool of upstream EVM nodes (`[[upstream.evm]]`), for the callers of EvmBackend
 * (handlers that do not forward, filters, subscriptions, accounts, plugins). Each call goes through its
 * method definition: params encoded by the definition's codecs, and its routing height, retry and cache
 * rules taken from it. What the backend adds: eth_getLogs over a long range split into chunks spread
 * over the pool, the gas cap and evm-timeout of eth_call, eth_estimateGas and debug_traceCall, and the
 * choice between a method's ByNumber and ByHash forms from the block asked.
 * Object and array results keep their upstream wire text (raw-json.ts), which the EVM envelope writes
 * out as it is.
 */
import { ApplicationError, InvalidParamsError } from '../../rpc/errors';
import type { AddressTransactionsPage, BlockRef, ContractCreator, EvmBackend, LogFilter, SearchDirection, TraceConfig, TransactionArgs } from '../evm-backend';
import type { Json, JsonObject } from '../../rpc/json';
import type { AnyMethod, MethodArgs } from '../../rpc/method';
import type { MethodRegistry } from '../../rpc/method-registry';
import { forward } from './forwarder';
import type { UpstreamPool } from './upstream-pool';

const LATEST: BlockRef = { kind: 'tag', tag: 'latest' };

export class UpstreamEvmBackend implements EvmBackend {
  constructor(
    readonly pool: UpstreamPool,
    private readonly methods: MethodRegistry,
  ) {}

  async chainId(): Promise<bigint> {
    return quantity(await this.request('eth_chainId', {}), 'eth_chainId');
  }

  async networkId(): Promise<string> {
    return String(await this.request('net_version', {}));
  }

  async clientVersion(): Promise<string> {
    return String(await this.request('web3_clientVersion', {}));
  }

  async netInfo(): Promise<{ readonly listening: boolean; readonly peerCount: number }> {
    const [listening, peers] = await Promise.all([this.request('net_listening', {}), this.request('net_peerCount', {})]);
    return { listening: listening === true, peerCount: Number(quantity(peers, 'net_peerCount')) };
  }

  async blockNumber(): Promise<bigint> {
    return quantity(await this.request('eth_blockNumber', {}), 'eth_blockNumber');
  }

  async syncing(): Promise<false | JsonObject> {
    const result = await this.request('eth_syncing', {});
    return result === false ? false : object(result, 'eth_syncing');
  }

  async gasPrice(): Promise<bigint> {
    return quantity(await this.request('eth_gasPrice', {}), 'eth_gasPrice');
  }

  async maxPriorityFeePerGas(): Promise<bigint> {
    return quantity(await this.request('eth_maxPriorityFeePerGas', {}), 'eth_maxPriorityFeePerGas');
  }

  async feeHistory(blockCount: bigint, lastBlock: BlockRef, rewardPercentiles: readonly number[]): Promise<JsonObject> {
    return object(await this.request('eth_feeHistory', { blockCount, lastBlock, rewardPercentiles }), 'eth_feeHistory');
  }

  async coinbase(): Promise<string> {
    return String(await this.request('eth_coinbase', {}));
  }

  async getBalance(address: string, block: BlockRef): Promise<bigint> {
    return quantity(await this.request('eth_getBalance', { address, block }), 'eth_getBalance');
  }

  async getStorageAt(address: string, slot: string, block: BlockRef): Promise<string> {
    return String(await this.request('eth_getStorageAt', { address, slot, block }));
  }

  async getTransactionCount(address: string, block: BlockRef): Promise<bigint> {
    return quantity(await this.request('eth_getTransactionCount', { address, block }), 'eth_getTransactionCount');
  }

  async getCode(address: string, block: BlockRef): Promise<string> {
    return String(await this.request('eth_getCode', { address, block }));
  }

  async getProof(address: string, storageKeys: readonly string[], block: BlockRef): Promise<JsonObject> {
    return object(await this.request('eth_getProof', { address, storageKeys, block }), 'eth_getProof');
  }

  async call(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<string> {
    return String(await this.request('eth_call', { args: gasCapped(args, options.gasCap), block }, timeout(options.timeoutMs)));
  }

  async estimateGas(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<bigint> {
    // Some nodes take no block here; `latest` is everyone's default, so it is only sent when it differs.
    const at = block.kind === 'tag' && block.tag === 'latest' ? undefined : block;
    const result = await this.request('eth_estimateGas', { args: gasCapped(args, options.gasCap), block: at }, timeout(options.timeoutMs));
    return quantity(result, 'eth_estimateGas');
  }

  async createAccessList(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<JsonObject> {
    const result = await this.request('eth_createAccessList', { args: gasCapped(args, options.gasCap), block }, timeout(options.timeoutMs));
    return object(result, 'eth_createAccessList');
  }

  async blobBaseFee(): Promise<bigint> {
    return quantity(await this.request('eth_blobBaseFee', {}), 'eth_blobBaseFee');
  }

  /** One upstream: moved to another only when the first refused the connection (it never saw the tx). */
  async sendRawTransaction(raw: Uint8Array): Promise<string> {
    return String(await this.request('eth_sendRawTransaction', { data: `0x${Buffer.from(raw).toString('hex')}` }));
  }

  async getBlockByNumber(block: BlockRef, fullTransactions: boolean): Promise<JsonObject | null> {
    if (block.kind === 'hash') return this.getBlockByHash(block.hash, fullTransactions);
    return nullable(await this.request('eth_getBlockByNumber', { block, fullTransactions }), 'eth_getBlockByNumber');
  }

  async getBlockByHash(hash: string, fullTransactions: boolean): Promise<JsonObject | null> {
    return nullable(await this.request('eth_getBlockByHash', { hash, fullTransactions }), 'eth_getBlockByHash');
  }

  async getBlockTransactionCount(block: BlockRef): Promise<bigint | null> {
    const result =
      block.kind === 'hash'
        ? await this.request('eth_getBlockTransactionCountByHash', { hash: block.hash })
        : await this.request('eth_getBlockTransactionCountByNumber', { block });
    return result === null ? null : quantity(result, 'eth_getBlockTransactionCount');
  }

  async getTransactionByHash(hash: string): Promise<JsonObject | null> {
    return nullable(await this.request('eth_getTransactionByHash', { hash }), 'eth_getTransactionByHash');
  }

  async getTransactionByBlockAndIndex(block: BlockRef, index: bigint): Promise<JsonObject | null> {
    const result =
      block.kind === 'hash'
        ? await this.request('eth_getTransactionByBlockHashAndIndex', { hash: block.hash, index })
        : await this.request('eth_getTransactionByBlockNumberAndIndex', { block, index });
    return nullable(result, 'eth_getTransactionByBlockAndIndex');
  }

  async getTransactionReceipt(hash: string): Promise<JsonObject | null> {
    return nullable(await this.request('eth_getTransactionReceipt', { hash }), 'eth_getTransactionReceipt');
  }

  async getBlockReceipts(block: BlockRef): Promise<JsonObject[] | null> {
    const result = await this.request('eth_getBlockReceipts', { block });
    return result === null ? null : array(result, 'eth_getBlockReceipts');
  }

  /** From the receipt: not every node serves eth_getTransactionLogs. */
  async getTransactionLogs(hash: string): Promise<JsonObject[] | null> {
    const receipt = await this.getTransactionReceipt(hash);
    return receipt === null ? null : array(receipt.logs ?? [], 'eth_getTransactionReceipt');
  }

  /**
   * A range within one chunk goes to one upstream as asked (tags resolved by the node itself); a longer
   * one is resolved against the pool head and split into `logs_chunk_blocks` chunks, each a read of
   * fixed blocks, run a few at a time over the pool (least busy first) and joined in block order. Caps
   * use Evmos's texts.
   */
  async getLogs(filter: LogFilter, caps: { blockRange: number; logs: number }): Promise<JsonObject[]> {
    const { fromBlock, toBlock, blockHash, ...criteria } = filter;
    if (blockHash !== undefined) return logsCapped(await this.logs({ ...criteria, blockHash }), caps.logs);
    const head = this.pool.head > 0n ? this.pool.head : await this.blockNumber();
    const from = bound(fromBlock, head);
    const to = bound(toBlock, head);
    // go-ethereum's range errors (-32602), checked before the cap as it does; a bound past the pool's
    // head is checked against a fresh head first, the pool's may lag.
    if (from > to) throw new InvalidParamsError('invalid block range params');
    if (to > head && to > (await this.blockNumber())) throw new InvalidParamsError('block range extends beyond current head block');
    if (to - from > BigInt(caps.blockRange)) throw new ApplicationError(`maximum [from, to] blocks distance: ${caps.blockRange}`);
    const chunk = BigInt(this.pool.settings.logs_chunk_blocks);
    if (to - from < chunk) return logsCapped(await this.logs({ ...criteria, fromBlock: fromBlock ?? LATEST, toBlock: toBlock ?? LATEST }), caps.logs);
    const last = to;
    const ranges: [bigint, bigint][] = [];
    for (let start = from; start <= last; start += chunk) ranges.push([start, start + chunk - 1n < last ? start + chunk - 1n : last]);
    const width = Math.max(2, Math.min(8, 2 * this.pool.upstreams.filter((u) => u.healthy).length));
    const parts: JsonObject[][] = new Array(ranges.length);
    let total = 0;
    let next = 0;
    const worker = async () => {
      while (next < ranges.length) {
        const i = next++;
        const [a, b] = ranges[i];
        parts[i] = await this.logs({ ...criteria, fromBlock: { kind: 'number', number: a }, toBlock: { kind: 'number', number: b } });
        total += parts[i].length;
        if (total > caps.logs) throw new ApplicationError(`query returned more than ${caps.logs} results`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(width, ranges.length) }, worker));
    return parts.flat();
  }

  async txpoolContent(): Promise<JsonObject> {
    return object(await this.request('txpool_content', {}), 'txpool_content');
  }

  async txpoolContentFrom(address: string): Promise<JsonObject> {
    return object(await this.request('txpool_contentFrom', { address }), 'txpool_contentFrom');
  }

  async txpoolInspect(): Promise<JsonObject> {
    return object(await this.request('txpool_inspect', {}), 'txpool_inspect');
  }

  async txpoolStatus(): Promise<JsonObject> {
    return object(await this.request('txpool_status', {}), 'txpool_status');
  }

  traceTransaction(hash: string, config: TraceConfig): Promise<Json> {
    return this.request('debug_traceTransaction', { hash, config });
  }

  traceBlock(block: BlockRef, config: TraceConfig): Promise<Json> {
    if (block.kind === 'hash') return this.request('debug_traceBlockByHash', { hash: block.hash, config });
    return this.request('debug_traceBlockByNumber', { block, config });
  }

  traceCall(args: TransactionArgs, block: BlockRef, config: TraceConfig, options: { gasCap: bigint; timeoutMs: number }): Promise<Json> {
    return this.request('debug_traceCall', { args: gasCapped(args, options.gasCap), block, config }, timeout(options.timeoutMs));
  }

  /*
   * The address history needs an index the standard API lacks: the methods that read it (Otterscan's
   * ots_*) are forwarded to the upstreams as clients send them, so these are never asked of a pool.
   * Asked anyway, they answer as a node without those methods does.
   */

  async searchAddressTransactions(_address: string, _fromBlock: bigint, direction: SearchDirection): Promise<AddressTransactionsPage> {
    throw notAvailable(direction === 'before' ? 'ots_searchTransactionsBefore' : 'ots_searchTransactionsAfter');
  }

  async transactionBySenderAndNonce(): Promise<string | null> {
    throw notAvailable('ots_getTransactionBySenderAndNonce');
  }

  async contractCreator(): Promise<ContractCreator | null> {
    throw notAvailable('ots_getContractCreator');
  }

  async devAccountKeys(): Promise<Uint8Array[]> {
    return [];
  }

  /** One eth_getLogs; its definition keeps a query of fixed blocks (a hash, two numbers) and routes it by its last block. */
  private async logs(criteria: LogFilter): Promise<JsonObject[]> {
    return array(await this.request('eth_getLogs', { criteria }), 'eth_getLogs');
  }

  /** The method `name` with `args` (by parameter name), as its definition says to send, route, retry and cache it. */
  private async request(name: string, args: MethodArgs, timeoutMs?: number): Promise<Json> {
    const method = this.methods.get(name);
    if (method === undefined) throw new ApplicationError(`${name} is not an EVM method`);
    return forward(this.pool, method, args, positionalParams(method, args), timeoutMs);
  }
}

/**
 * Decoded args in their JSON-RPC form, by position: trailing left-out params are not sent, a left-out
 * one before a given one is null (go-ethereum's reading of an absent optional param).
 */
function positionalParams(method: AnyMethod, args: MethodArgs): Json[] {
  const params: Json[] = [];
  let sent = 0;
  for (const p of method.params) {
    const value = args[p.name];
    if (value === undefined) {
      params.push(null);
      continue;
    }
    if (!p.codec.encode) throw new Error(`${method.name}: parameter ${p.name} has no JSON-RPC form`);
    params.push(p.codec.encode(value as never));
    sent = params.length;
  }
  return params.slice(0, sent);
}

/** go-ethereum's answer for a method it does not serve. */
function notAvailable(method: string): ApplicationError {
  return new ApplicationError(`the method ${method} does not exist/is not available`, -32601);
}

/** A range bound: missing, head tags and hashes are the head; `earliest` is the first block. */
function bound(ref: BlockRef | undefined, head: bigint): bigint {
  if (ref === undefined || ref.kind === 'hash') return head;
  if (ref.kind === 'tag') return ref.tag === 'earliest' ? 0n : head;
  return ref.number;
}

function logsCapped(logs: JsonObject[], cap: number): JsonObject[] {
  if (logs.length > cap) throw new ApplicationError(`query returned more than ${cap} results`);
  return logs;
}

/** The args with a gas above the gateway's cap lowered to it (0 = no cap). */
function gasCapped(args: TransactionArgs, gasCap: bigint): TransactionArgs {
  return gasCap > 0n && args.gas !== undefined && args.gas > gasCap ? { ...args, gas: gasCap } : args;
}

/** The gateway's evm-timeout as the upstream request's timeout (0 = the pool's request_timeout). */
function timeout(ms: number): number | undefined {
  return ms > 0 ? ms : undefined;
}

function quantity(result: Json, method: string): bigint {
  if (typeof result === 'string' && /^0x[0-9a-fA-F]+$/.test(result)) return BigInt(result);
  if (typeof result === 'number' && Number.isSafeInteger(result)) return BigInt(result);
  throw new ApplicationError(`upstream answered ${method} with a non-quantity result`);
}

function object(result: Json, method: string): JsonObject {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) throw new ApplicationError(`upstream answered ${method} with a non-object result`);
  return result;
}

function nullable(result: Json, method: string): JsonObject | null {
  return result === null ? null : object(result, method);
}

function array(result: Json, method: string): JsonObject[] {
  if (!Array.isArray(result)) throw new ApplicationError(`upstream answered ${method} with a non-array result`);
  return result as JsonObject[];
}
