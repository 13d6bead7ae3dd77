/**
 * From an EVM tx hash to the CometBFT tx that carries it, and back, over the gateway's backends (the
 * embedded devnet or the upstream pools: the same calls either way).
 *
 * EVM hash → CometBFT tx: the EVM receipt names the block (`ctx.evm`); that block's txs (`ctx.node`
 * `block`) are read for the one carrying the EVM tx (its bytes, else the block's results' `ethereum_tx`
 * events); its sha256 is the CometBFT hash, and the node's `tx` answers. When the EVM RPC cannot answer
 * (no EVM upstream, or it fails), the node's tx index is searched for `ethereum_tx.ethereumTxHash`, as
 * Evmos's own JSON-RPC finds its txs.
 *
 * CometBFT tx → EVM hash: the node's `tx` answer, its bytes read (else its `ethereum_tx` events).
 */
import { createHash } from 'node:crypto';
import { ApplicationError, evmMethods, nodeMethods, type CallContext, type Json, type JsonObject, type PluginInvoker, type RpcReceipt } from 'rpc-gateway/plugin-api';
import { evmHashesInEvents, evmHashesOfTx } from './carried-evm-txs';

/** What `evm_tx_hash` answers: the EVM hash and where the CometBFT tx is (as its `tx` answer says). */
export interface EvmTxHashJson {
  readonly evm_hash: string;
  /** The block height, int64 as a decimal string. */
  readonly height: string;
  /** The tx's index in the block. */
  readonly index: number;
}

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const field = (value: Json | undefined, key: string): Json | undefined => (isObject(value) ? value[key] : undefined);
const sha256 = (bytes: Uint8Array): Uint8Array => createHash('sha256').update(bytes).digest();
const upperHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex').toUpperCase();
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class TxMapping {
  constructor(
    private readonly node: PluginInvoker,
    private readonly evm: PluginInvoker,
  ) {}

  /** The node's `tx` answer for the CometBFT tx carrying EVM tx `evmHash` (lower-case 0x-hex). */
  async txByEvmHash(evmHash: string, ctx?: CallContext): Promise<JsonObject> {
    if (evmHash === '') throw new ApplicationError('EVM transaction hash cannot be empty');
    return this.node.invoke(nodeMethods.tx, { hash: await this.cometHashOf(evmHash, ctx), prove: false }, ctx);
  }

  /** The EVM hash the CometBFT tx `hash` carries, and where that tx is. */
  async evmTxHash(hash: Uint8Array, ctx?: CallContext): Promise<EvmTxHashJson> {
    const tx = await this.node.invoke(nodeMethods.tx, { hash, prove: false }, ctx);
    const bytes = typeof tx.tx === 'string' ? Buffer.from(tx.tx, 'base64') : new Uint8Array(0);
    const [evmHash] = [...evmHashesOfTx(bytes), ...evmHashesInEvents(field(tx.tx_result, 'events'))];
    if (evmHash === undefined) throw new ApplicationError(`tx (${upperHex(hash)}) carries no EVM transaction`);
    return { evm_hash: evmHash, height: String(tx.height), index: Number(tx.index) };
  }

  private async cometHashOf(evmHash: string, ctx: CallContext | undefined): Promise<Uint8Array> {
    let receipt: RpcReceipt | null;
    try {
      receipt = await this.evm.invoke(evmMethods.eth_getTransactionReceipt, { hash: evmHash }, ctx);
    } catch (err) {
      return this.searchIndex(evmHash, messageOf(err), ctx);
    }
    if (receipt === null) throw notFound(evmHash);
    const number: Json | undefined = receipt.blockNumber;
    if (typeof number !== 'string' || !/^0x[0-9a-fA-F]+$/.test(number)) return this.searchIndex(evmHash, 'its receipt names no block', ctx);
    const height = BigInt(number);
    return (await this.findInBlock(height, evmHash, ctx)) ?? this.searchIndex(evmHash, `no tx of block ${height} carries it`, ctx);
  }

  /** The CometBFT hash of the tx of block `height` that carries `evmHash`. */
  private async findInBlock(height: bigint, evmHash: string, ctx: CallContext | undefined): Promise<Uint8Array | undefined> {
    const data = field(field(await this.node.invoke(nodeMethods.block, { height }, ctx), 'block'), 'data');
    const encoded = field(data, 'txs');
    const txs = Array.isArray(encoded) ? encoded.map((t) => Buffer.from(typeof t === 'string' ? t : '', 'base64')) : [];
    const byBytes = txs.find((tx) => evmHashesOfTx(tx).includes(evmHash));
    if (byBytes !== undefined) return sha256(byBytes);
    // Bytes that do not tell (a MsgEthereumTx with neither `raw` nor `hash`): the executed txs' events do.
    const results = field(await this.node.invoke(nodeMethods.block_results, { height }, ctx), 'txs_results');
    const index = Array.isArray(results) ? results.findIndex((r) => evmHashesInEvents(field(r, 'events')).includes(evmHash)) : -1;
    return index >= 0 && index < txs.length ? sha256(txs[index]) : undefined;
  }

  /** The node's tx index, by the `ethereum_tx` event x/evm emits; `why` says why the EVM RPC was not enough. */
  private async searchIndex(evmHash: string, why: string, ctx: CallContext | undefined): Promise<Uint8Array> {
    let found: JsonObject;
    try {
      const query = `ethereum_tx.ethereumTxHash='${evmHash}'`;
      found = await this.node.invoke(nodeMethods.tx_search, { query, prove: false, page: undefined, per_page: undefined, order_by: 'asc' }, ctx);
    } catch (err) {
      throw new ApplicationError(`cannot look up EVM tx (${evmHash}): the EVM RPC did not find it (${why}) and tx_search failed (${messageOf(err)})`);
    }
    const first = Array.isArray(found.txs) ? found.txs[0] : undefined;
    const hash = field(first, 'hash');
    if (typeof hash !== 'string') throw notFound(evmHash);
    return Buffer.from(hash, 'hex');
  }
}

function notFound(evmHash: string): ApplicationError {
  return new ApplicationError(`EVM tx (${evmHash}) not found`);
}
