/**
 * The EVM RPC's own types: what its codecs decode parameters into (block references, transaction
 * arguments, log filters, trace options), and the wire shapes of the results the gateway reads itself
 * (blocks, transactions, receipts, logs), as go-ethereum and Evmos answer them: quantities as 0x-hex.
 */
import type { JsonObject } from '../rpc/json';

export type BlockTag = 'latest' | 'pending' | 'earliest' | 'safe' | 'finalized';

/** A block parameter: a number, a tag, or an EIP-1898 block hash object. */
export type BlockRef =
  | { readonly kind: 'number'; readonly number: bigint }
  | { readonly kind: 'tag'; readonly tag: BlockTag }
  | { readonly kind: 'hash'; readonly hash: string; readonly requireCanonical: boolean };

/** eth_call / eth_estimateGas / eth_sendTransaction arguments (go-ethereum's TransactionArgs). */
export interface TransactionArgs {
  readonly from?: string;
  readonly to?: string | null;
  readonly gas?: bigint;
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly value?: bigint;
  readonly nonce?: bigint;
  /** `input` or its older name `data`, hex. */
  readonly input?: string;
  readonly accessList?: ReadonlyArray<{ address: string; storageKeys: string[] }>;
  readonly chainId?: bigint;
  readonly type?: bigint;
}

export interface LogFilter {
  readonly fromBlock?: BlockRef;
  readonly toBlock?: BlockRef;
  readonly blockHash?: string;
  readonly address?: readonly string[];
  /** Per position: null = any, else any of these topics. */
  readonly topics?: ReadonlyArray<readonly string[] | null>;
}

/** debug_trace* options (go-ethereum's TraceConfig). */
export interface TraceConfig {
  readonly tracer?: 'callTracer' | 'prestateTracer' | string;
  readonly tracerConfig?: JsonObject;
  readonly disableStorage?: boolean;
  readonly disableStack?: boolean;
  readonly enableMemory?: boolean;
  readonly enableReturnData?: boolean;
  readonly timeout?: string;
}

/** A 0x-hex quantity as it travels on the wire. */
export type Quantity = string;

/** A block (eth_getBlockBy*): hashes only, or full transactions. */
export interface RpcBlock extends JsonObject {
  readonly number: Quantity;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: Quantity;
  readonly transactions: string[] | RpcTransaction[];
}

/** A transaction (eth_getTransactionBy*): the block fields are null while it is pending. */
export interface RpcTransaction extends JsonObject {
  readonly hash: string;
  readonly from: string;
  readonly nonce: Quantity;
  readonly blockHash: string | null;
  readonly blockNumber: Quantity | null;
}

/** A log (eth_getLogs, receipts). */
export interface RpcLog extends JsonObject {
  readonly address: string;
  readonly topics: string[];
  readonly data: string;
  readonly blockNumber: Quantity;
  readonly blockHash: string;
  readonly transactionHash: string;
  readonly logIndex: Quantity;
  readonly removed: boolean;
}

/** A receipt (eth_getTransactionReceipt, eth_getBlockReceipts). */
export interface RpcReceipt extends JsonObject {
  readonly transactionHash: string;
  readonly blockNumber: Quantity;
  readonly blockHash: string;
  readonly status: Quantity;
  readonly logs: RpcLog[];
}

/** txpool_content: transactions by sender, then by nonce. */
export interface TxPoolContent extends JsonObject {
  readonly pending: Record<string, Record<string, RpcTransaction>>;
  readonly queued: Record<string, Record<string, RpcTransaction>>;
}
