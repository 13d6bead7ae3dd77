/**
 * The EVM RPC over a pool of upstream EVM nodes (`[[upstream.evm]]`). Each method is one upstream
 * JSON-RPC call (eth_getLogs over a long range: several, spread over the pool) with the height it
 * needs for routing, whether it may be retried, and how its answer may be cached: answers at a fixed
 * block (a number at or below head − finality_depth, a hash) and found blocks, transactions and
 * receipts by hash are immutable; `latest` answers live at most one block; `pending` ones are not kept.
 * Object and array results keep their upstream wire text (raw-json.ts), which the EVM envelope writes
 * out as it is.
 */
import { ApplicationError } from '../../rpc/errors';
import type { BlockRef, EvmBackend, LogFilter, TraceConfig, TransactionArgs } from '../evm-backend';
import type { Json, JsonObject } from '../../rpc/json';
import { IMMUTABLE, LATEST, NEVER as NONE, type CacheRule } from '../../rpc/method';
import type { UpstreamPool } from './upstream-pool';

/** Found: a null (unknown block or transaction) may still appear later. */
const FOUND: CacheRule = { kind: 'immutable', keep: (r) => r !== null };
/** A transaction is final once mined (a pending one has a null blockHash). */
const MINED: CacheRule = { kind: 'immutable', keep: (r) => r !== null && (r as JsonObject).blockHash != null };

const hex = (n: bigint): string => `0x${n.toString(16)}`;

/** A block parameter as the upstream takes it, the height it needs, and how its answer may be kept. */
interface At {
  readonly param: Json;
  readonly height?: bigint;
  readonly rule: CacheRule;
}

export class UpstreamEvmBackend implements EvmBackend {
  constructor(readonly pool: UpstreamPool) {}

  async chainId(): Promise<bigint> {
    return quantity(await this.read('eth_chainId', [], IMMUTABLE), 'eth_chainId');
  }

  async networkId(): Promise<string> {
    return String(await this.read('net_version', [], IMMUTABLE));
  }

  async clientVersion(): Promise<string> {
    return String(await this.read('web3_clientVersion', [], LATEST));
  }

  async netInfo(): Promise<{ readonly listening: boolean; readonly peerCount: number }> {
    const [listening, peers] = await Promise.all([this.read('net_listening', [], LATEST), this.read('net_peerCount', [], LATEST)]);
    return { listening: listening === true, peerCount: Number(quantity(peers, 'net_peerCount')) };
  }

  async blockNumber(): Promise<bigint> {
    return quantity(await this.read('eth_blockNumber', [], NONE), 'eth_blockNumber');
  }

  async syncing(): Promise<false | JsonObject> {
    const result = await this.read('eth_syncing', [], NONE);
    return result === false ? false : object(result, 'eth_syncing');
  }

  async gasPrice(): Promise<bigint> {
    return quantity(await this.read('eth_gasPrice', [], LATEST), 'eth_gasPrice');
  }

  async maxPriorityFeePerGas(): Promise<bigint> {
    return quantity(await this.read('eth_maxPriorityFeePerGas', [], LATEST), 'eth_maxPriorityFeePerGas');
  }

  async feeHistory(blockCount: bigint, lastBlock: BlockRef, rewardPercentiles: readonly number[]): Promise<JsonObject> {
    const at = this.at(lastBlock);
    return object(await this.read('eth_feeHistory', [hex(blockCount), at.param, [...rewardPercentiles]], at.rule, at.height), 'eth_feeHistory');
  }

  async coinbase(): Promise<string> {
    return String(await this.read('eth_coinbase', [], LATEST));
  }

  async getBalance(address: string, block: BlockRef): Promise<bigint> {
    return quantity(await this.readAt('eth_getBalance', [address], block), 'eth_getBalance');
  }

  async getStorageAt(address: string, slot: string, block: BlockRef): Promise<string> {
    return String(await this.readAt('eth_getStorageAt', [address, slot], block));
  }

  async getTransactionCount(address: string, block: BlockRef): Promise<bigint> {
    return quantity(await this.readAt('eth_getTransactionCount', [address], block), 'eth_getTransactionCount');
  }

  async getCode(address: string, block: BlockRef): Promise<string> {
    return String(await this.readAt('eth_getCode', [address], block));
  }

  async getProof(address: string, storageKeys: readonly string[], block: BlockRef): Promise<JsonObject> {
    return object(await this.readAt('eth_getProof', [address, [...storageKeys]], block), 'eth_getProof');
  }

  async call(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<string> {
    return String(await this.readAt('eth_call', [txArgs(args, options.gasCap)], block, timeout(options.timeoutMs)));
  }

  async estimateGas(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<bigint> {
    const params: Json[] = [txArgs(args, options.gasCap)];
    // Some nodes take no block here; `latest` is everyone's default, so it is only sent when it differs.
    if (!(block.kind === 'tag' && block.tag === 'latest')) params.push(this.at(block).param);
    const at = this.at(block);
    const result = await this.pool.request({ method: 'eth_estimateGas', params, needs: { height: at.height }, idempotent: true, cache: at.rule, timeoutMs: timeout(options.timeoutMs) });
    return quantity(result, 'eth_estimateGas');
  }

  /** One upstream: moved to another only when the first refused the connection (it never saw the tx). */
  async sendRawTransaction(raw: Uint8Array): Promise<string> {
    const result = await this.pool.request({
      method: 'eth_sendRawTransaction',
      params: [`0x${Buffer.from(raw).toString('hex')}`],
      needs: {},
      idempotent: false,
      cache: NONE,
    });
    return String(result);
  }

  async getBlockByNumber(block: BlockRef, fullTransactions: boolean): Promise<JsonObject | null> {
    if (block.kind === 'hash') return this.getBlockByHash(block.hash, fullTransactions);
    const at = this.at(block);
    return nullable(await this.read('eth_getBlockByNumber', [at.param, fullTransactions], found(at.rule), at.height), 'eth_getBlockByNumber');
  }

  async getBlockByHash(hash: string, fullTransactions: boolean): Promise<JsonObject | null> {
    return nullable(await this.read('eth_getBlockByHash', [hash, fullTransactions], FOUND), 'eth_getBlockByHash');
  }

  async getBlockTransactionCount(block: BlockRef): Promise<bigint | null> {
    const result =
      block.kind === 'hash'
        ? await this.read('eth_getBlockTransactionCountByHash', [block.hash], FOUND)
        : await this.readAt('eth_getBlockTransactionCountByNumber', [], block, undefined, true);
    return result === null ? null : quantity(result, 'eth_getBlockTransactionCount');
  }

  async getTransactionByHash(hash: string): Promise<JsonObject | null> {
    return nullable(await this.read('eth_getTransactionByHash', [hash], MINED), 'eth_getTransactionByHash');
  }

  async getTransactionByBlockAndIndex(block: BlockRef, index: bigint): Promise<JsonObject | null> {
    const result =
      block.kind === 'hash'
        ? await this.read('eth_getTransactionByBlockHashAndIndex', [block.hash, hex(index)], FOUND)
        : await this.readAt('eth_getTransactionByBlockNumberAndIndex', [], block, undefined, true, [hex(index)]);
    return nullable(result, 'eth_getTransactionByBlockAndIndex');
  }

  /** A receipt tells the client its tx is in a block; its next reads are of that block or a later one. */
  async getTransactionReceipt(hash: string): Promise<JsonObject | null> {
    const receipt = nullable(await this.read('eth_getTransactionReceipt', [hash], FOUND), 'eth_getTransactionReceipt');
    const block = receipt?.blockNumber;
    if (typeof block === 'string' && /^0x[0-9a-fA-F]+$/.test(block)) await this.pool.sawHeight(BigInt(block));
    return receipt;
  }

  async getBlockReceipts(block: BlockRef): Promise<JsonObject[] | null> {
    const result =
      block.kind === 'hash'
        ? await this.read('eth_getBlockReceipts', [block.hash], FOUND)
        : await this.readAt('eth_getBlockReceipts', [], block, undefined, true);
    return result === null ? null : array(result, 'eth_getBlockReceipts');
  }

  async getTransactionLogs(hash: string): Promise<JsonObject[] | null> {
    const receipt = await this.getTransactionReceipt(hash);
    return receipt === null ? null : array(receipt.logs ?? [], 'eth_getTransactionReceipt');
  }

  /**
   * A range within one chunk goes to one upstream as asked (tags resolved by the node itself); a longer
   * one is resolved against the pool head and split into `logs_chunk_blocks` chunks, run a few at a time
   * over the pool (least busy first) and joined in block order. Caps use Evmos's texts.
   */
  async getLogs(filter: LogFilter, caps: { blockRange: number; logs: number }): Promise<JsonObject[]> {
    const criteria: Record<string, Json> = {};
    if (filter.address !== undefined) criteria.address = [...filter.address];
    if (filter.topics !== undefined) criteria.topics = filter.topics.map((t) => (t === null ? null : [...t]));
    if (filter.blockHash !== undefined) {
      return capped(array(await this.read('eth_getLogs', [{ ...criteria, blockHash: filter.blockHash }], IMMUTABLE), 'eth_getLogs'), caps.logs);
    }
    const head = this.pool.head > 0n ? this.pool.head : await this.blockNumber();
    const from = bound(filter.fromBlock, head);
    const to = bound(filter.toBlock, head);
    if (to - from > BigInt(caps.blockRange)) throw new ApplicationError(`maximum [from, to] blocks distance: ${caps.blockRange}`);
    if (from > to) throw new ApplicationError('invalid block range params');
    const chunk = BigInt(this.pool.settings.logs_chunk_blocks);
    if (to - from < chunk) {
      const fixed = isNumber(filter.fromBlock) && isNumber(filter.toBlock);
      const params = { ...criteria, fromBlock: this.at(filter.fromBlock ?? LATEST_REF).param, toBlock: this.at(filter.toBlock ?? LATEST_REF).param };
      const result = await this.read('eth_getLogs', [params], fixed ? IMMUTABLE : LATEST, fixed ? to : undefined);
      return capped(array(result, 'eth_getLogs'), caps.logs);
    }
    if (from > head) return [];
    const last = to < head ? to : head;
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
        const result = await this.read('eth_getLogs', [{ ...criteria, fromBlock: hex(a), toBlock: hex(b) }], IMMUTABLE, b);
        parts[i] = array(result, 'eth_getLogs');
        total += parts[i].length;
        if (total > caps.logs) throw new ApplicationError(`query returned more than ${caps.logs} results`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(width, ranges.length) }, worker));
    return parts.flat();
  }

  async txpoolContent(): Promise<JsonObject> {
    return object(await this.read('txpool_content', [], NONE), 'txpool_content');
  }

  async txpoolContentFrom(address: string): Promise<JsonObject> {
    return object(await this.read('txpool_contentFrom', [address], NONE), 'txpool_contentFrom');
  }

  async txpoolInspect(): Promise<JsonObject> {
    return object(await this.read('txpool_inspect', [], NONE), 'txpool_inspect');
  }

  async txpoolStatus(): Promise<JsonObject> {
    return object(await this.read('txpool_status', [], NONE), 'txpool_status');
  }

  traceTransaction(hash: string, config: TraceConfig): Promise<Json> {
    return this.read('debug_traceTransaction', [hash, traceConfig(config)], IMMUTABLE);
  }

  traceBlock(block: BlockRef, config: TraceConfig): Promise<Json> {
    if (block.kind === 'hash') return this.read('debug_traceBlockByHash', [block.hash, traceConfig(config)], IMMUTABLE);
    return this.readAt('debug_traceBlockByNumber', [], block, undefined, true, [traceConfig(config)]);
  }

  traceCall(args: TransactionArgs, block: BlockRef, config: TraceConfig, options: { gasCap: bigint; timeoutMs: number }): Promise<Json> {
    return this.readAt('debug_traceCall', [txArgs(args, options.gasCap)], block, timeout(options.timeoutMs), false, [traceConfig(config)]);
  }

  async devAccountKeys(): Promise<Uint8Array[]> {
    return [];
  }

  /** A block parameter as sent upstream, with its routing height and cache rule. */
  private at(block: BlockRef): At {
    switch (block.kind) {
      case 'number':
        return { param: hex(block.number), height: block.number, rule: IMMUTABLE };
      case 'hash':
        return { param: { blockHash: block.hash, requireCanonical: block.requireCanonical }, rule: IMMUTABLE };
      case 'tag':
        if (block.tag === 'earliest') return { param: 'earliest', rule: IMMUTABLE };
        return { param: block.tag, rule: block.tag === 'pending' ? NONE : LATEST };
    }
  }

  /**
   * `method(...before, block, ...after)` at `block`. `byNumber`: a method of the ByNumber family, which
   * takes a number or tag, never an EIP-1898 object, and whose null answer is not kept.
   */
  private readAt(method: string, before: Json[], block: BlockRef, timeoutMs?: number, byNumber = false, after: Json[] = []): Promise<Json> {
    const at = this.at(block);
    const param = byNumber && block.kind === 'hash' ? block.hash : at.param;
    return this.read(method, [...before, param, ...after], byNumber ? found(at.rule) : at.rule, at.height, timeoutMs);
  }

  private read(method: string, params: Json[], cache: CacheRule, height?: bigint, timeoutMs?: number): Promise<Json> {
    return this.pool.request({ method, params, needs: { height }, idempotent: true, cache, timeoutMs });
  }
}

const LATEST_REF: BlockRef = { kind: 'tag', tag: 'latest' };

/** An immutable rule that keeps only found (non-null) answers; other rules as they are. */
function found(rule: CacheRule): CacheRule {
  return rule.kind === 'immutable' ? FOUND : rule;
}

function isNumber(ref: BlockRef | undefined): boolean {
  return ref?.kind === 'number';
}

/** A range bound: missing, head tags and hashes are the head; `earliest` is the first block. */
function bound(ref: BlockRef | undefined, head: bigint): bigint {
  if (ref === undefined || ref.kind === 'hash') return head;
  if (ref.kind === 'tag') return ref.tag === 'earliest' ? 0n : head;
  return ref.number;
}

function capped(logs: JsonObject[], cap: number): JsonObject[] {
  if (logs.length > cap) throw new ApplicationError(`query returned more than ${cap} results`);
  return logs;
}

/** go-ethereum's TransactionArgs on the wire; a gas above the gateway's cap is lowered to it. */
function txArgs(args: TransactionArgs, gasCap: bigint): JsonObject {
  const out: JsonObject = {};
  if (args.from !== undefined) out.from = args.from;
  if (args.to !== undefined) out.to = args.to;
  if (args.gas !== undefined) out.gas = hex(gasCap > 0n && args.gas > gasCap ? gasCap : args.gas);
  if (args.gasPrice !== undefined) out.gasPrice = hex(args.gasPrice);
  if (args.maxFeePerGas !== undefined) out.maxFeePerGas = hex(args.maxFeePerGas);
  if (args.maxPriorityFeePerGas !== undefined) out.maxPriorityFeePerGas = hex(args.maxPriorityFeePerGas);
  if (args.value !== undefined) out.value = hex(args.value);
  if (args.nonce !== undefined) out.nonce = hex(args.nonce);
  // Both names: go-ethereum accepts them when equal, older nodes read only `data`.
  if (args.input !== undefined) out.input = out.data = args.input;
  if (args.accessList !== undefined) out.accessList = args.accessList.map((e) => ({ address: e.address, storageKeys: [...e.storageKeys] }));
  if (args.chainId !== undefined) out.chainId = hex(args.chainId);
  if (args.type !== undefined) out.type = hex(args.type);
  return out;
}

function traceConfig(config: TraceConfig): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(config)) if (v !== undefined) out[k] = v as Json;
  return out;
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
