/**
 * What the EVM RPC needs from a backend. Params arrive decoded and validated by the EVM codec
 * (addresses and hashes lower-case 0x-hex, quantities as bigint); results are wire JSON (quantities
 * as 0x-hex strings, objects shaped as Evmos/go-ethereum answer). Failures are thrown as
 * `ApplicationError` (code -32000 unless a code such as 3 for reverts applies) with go-ethereum's texts.
 */
import type { Json, JsonObject } from '../rpc/json';

export const EVM_BACKEND = Symbol('EVM_BACKEND');

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

/** Blocks below (`before`) or above (`after`) a height, as an address's history is searched. */
export type SearchDirection = 'before' | 'after';

/** One page of an address's mined transactions (Otterscan's ots_searchTransactionsBefore/After). */
export interface AddressTransactionsPage {
  /** Transaction hashes, the latest first. */
  readonly hashes: readonly string[];
  /** The page holds the latest transactions. */
  readonly firstPage: boolean;
  /** The page holds the earliest transactions. */
  readonly lastPage: boolean;
}

/** Who created a contract (the sender of a deployment, or a contract's CREATE/CREATE2) and in which tx. */
export interface ContractCreator {
  readonly hash: string;
  readonly creator: string;
}

export interface EvmBackend {
  chainId(): Promise<bigint>;
  /** EIP-155 network id as a decimal string (net_version). */
  networkId(): Promise<string>;
  clientVersion(): Promise<string>;
  /** The node's p2p state, for net_listening and net_peerCount. */
  netInfo(): Promise<{ readonly listening: boolean; readonly peerCount: number }>;
  blockNumber(): Promise<bigint>;
  syncing(): Promise<false | JsonObject>;
  gasPrice(): Promise<bigint>;
  maxPriorityFeePerGas(): Promise<bigint>;
  feeHistory(blockCount: bigint, lastBlock: BlockRef, rewardPercentiles: readonly number[]): Promise<JsonObject>;
  coinbase(): Promise<string>;

  getBalance(address: string, block: BlockRef): Promise<bigint>;
  getStorageAt(address: string, slot: string, block: BlockRef): Promise<string>;
  getTransactionCount(address: string, block: BlockRef): Promise<bigint>;
  getCode(address: string, block: BlockRef): Promise<string>;
  getProof(address: string, storageKeys: readonly string[], block: BlockRef): Promise<JsonObject>;
  /** Honours gas cap and timeout; a revert throws ApplicationError code 3 with the data. */
  call(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<string>;
  estimateGas(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<bigint>;
  /** eth_createAccessList: `{accessList, gasUsed, error?}` for the call at `block`. */
  createAccessList(args: TransactionArgs, block: BlockRef, options: { gasCap: bigint; timeoutMs: number }): Promise<JsonObject>;
  /** eth_blobBaseFee: the blob base fee of the next block (EIP-4844). */
  blobBaseFee(): Promise<bigint>;
  /** Returns the tx hash once the tx is accepted into the mempool. */
  sendRawTransaction(raw: Uint8Array): Promise<string>;

  getBlockByNumber(block: BlockRef, fullTransactions: boolean): Promise<JsonObject | null>;
  getBlockByHash(hash: string, fullTransactions: boolean): Promise<JsonObject | null>;
  getBlockTransactionCount(block: BlockRef): Promise<bigint | null>;
  getTransactionByHash(hash: string): Promise<JsonObject | null>;
  getTransactionByBlockAndIndex(block: BlockRef, index: bigint): Promise<JsonObject | null>;
  getTransactionReceipt(hash: string): Promise<JsonObject | null>;
  getBlockReceipts(block: BlockRef): Promise<JsonObject[] | null>;
  getTransactionLogs(hash: string): Promise<JsonObject[] | null>;
  /** Enforces `block-range-cap` and `logs-cap` with go-ethereum/Evmos texts. */
  getLogs(filter: LogFilter, caps: { blockRange: number; logs: number }): Promise<JsonObject[]>;

  txpoolContent(): Promise<JsonObject>;
  txpoolContentFrom(address: string): Promise<JsonObject>;
  txpoolInspect(): Promise<JsonObject>;
  txpoolStatus(): Promise<JsonObject>;

  traceTransaction(hash: string, config: TraceConfig): Promise<Json>;
  traceBlock(block: BlockRef, config: TraceConfig): Promise<Json>;
  traceCall(args: TransactionArgs, block: BlockRef, config: TraceConfig, options: { gasCap: bigint; timeoutMs: number }): Promise<Json>;

  /**
   * The mined transactions `address` took part in (as sender, recipient, created contract, or in an
   * internal call), in blocks before or after `fromBlock` (0: from the latest block down, or from the
   * first block up), latest first. A page holds at least `pageSize` transactions when there are that
   * many, and then every other one of the last block it reached.
   */
  searchAddressTransactions(address: string, fromBlock: bigint, direction: SearchDirection, pageSize: number): Promise<AddressTransactionsPage>;
  /** The hash of the mined transaction `sender` sent with `nonce`, or null. */
  transactionBySenderAndNonce(sender: string, nonce: bigint): Promise<string | null>;
  /** Who created the contract at `address` (its current code), or null for an account without code. */
  contractCreator(address: string): Promise<ContractCreator | null>;

  /** Private keys of the accounts the backend funds for development (empty for upstream nodes). */
  devAccountKeys(): Promise<Uint8Array[]>;
}
