/**
 * The devnet's EVM application: Ethereum transactions executed by `@ethereumjs/vm` on a world state
 * kept in the devnet database (trie nodes in `evm.trie`, per-block receipts and state roots in
 * `evm.blocks`, and the address index: each address's txs, senders' nonces, contracts' creators). Its
 * app hash is the EVM state root. Composed beside the kvstore by the router application; on its own
 * it refuses every tx that is not an Ethereum transaction.
 *
 * Genesis: the development accounts, each with 10000 ETH. Each block runs at the block's height and
 * time, with the proposer's address as coinbase and the EIP-1559 base fee that follows from the
 * previous block (the first block has the initial base fee).
 */
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, createAccount, createAddressFromString, equalsBytes, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { txHash } from '../../chain/hashing';
import { EvmChainStore, type EvmBlockRecord, type EvmHead } from '../../evm-state/evm-chain-store';
import { AddressIndex, type IndexedTx } from '../../indexer/address-index';
import { TrieNodeStore } from '../../evm-state/trie-node-store';
import { openWorldState } from '../../evm-state/world-state';
import type { Database, WriteBatch } from '../../store/database';
import type { Application, CheckTxResult, FinalizeBlockRequest, FinalizeBlockResult, InfoResult, QueryRequest, QueryResult, ValidatorUpdate } from '../application';
import { txResult } from '../results';
import { nextBaseFee } from './base-fee';
import { executeBlock, type BlockTx } from './block-executor';
import { DEV_ACCOUNT_BALANCE, devAccounts } from './dev-accounts';
import { decodeEthTx, isEthTxEnvelope } from './eth-tx';
import { createDevnetVm, type BlockEnv, type BlockHashLookup } from './execution-context';
import type { ExecutionWatchdog } from './execution-watchdog';
import { commonFor, type EvmParams } from './evm-params';
import { PendingAccounts } from './pending-accounts';
import { checkAgainstState, checkStateless, Code, CODESPACE, costOf, refusalRejection, type StatelessRules, type TxRejection } from './tx-checks';

export interface EvmApplicationOptions {
  params: EvmParams;
  /** The gas a block may use: consensus block.max_gas, or the EVM params' limit when that is -1. */
  blockGasLimit: bigint;
  blockHashes: BlockHashLookup;
}

const NOT_ETHEREUM = 'not an Ethereum transaction';
const APP_VERSION = 0n;

export class EvmApplication implements Application {
  private pending: { record: EvmBlockRecord; indexed: IndexedTx[] } | undefined;
  private readonly checkState = new PendingAccounts();

  private constructor(
    readonly params: EvmParams,
    readonly common: Common,
    readonly blockGasLimit: bigint,
    readonly nodes: TrieNodeStore,
    readonly chain: EvmChainStore,
    /** Each address's txs, senders' nonces and contracts' creators, written with each block. */
    readonly addresses: AddressIndex,
    readonly blockHashes: BlockHashLookup,
    private readonly vm: VM,
    private head: EvmHead,
    private lastBlock: EvmBlockRecord | undefined,
  ) {}

  static async load(db: Database, options: EvmApplicationOptions): Promise<EvmApplication> {
    const common = commonFor(options.params.chainId);
    const nodes = new TrieNodeStore(db.table<string>('evm.trie'));
    const chain = new EvmChainStore(db);
    const head = (await chain.loadHead()) ?? { height: 0n, stateRoot: KECCAK256_RLP };
    const vm = await createDevnetVm(common, await openWorldState(nodes.liveDb(), head.stateRoot, common), options.blockHashes);
    const lastBlock = head.height > 0n ? await chain.loadBlock(head.height) : undefined;
    return new EvmApplication(options.params, common, options.blockGasLimit, nodes, chain, new AddressIndex(db), options.blockHashes, vm, head, lastBlock);
  }

  /** The latest committed EVM state (height 0: genesis). */
  get committedHead(): EvmHead {
    return this.head;
  }

  /** The base fee of the next block. */
  nextBaseFee(): bigint {
    return this.lastBlock === undefined ? this.params.initialBaseFee : nextBaseFee(this.lastBlock);
  }

  /** A throwaway view of the world state at a root (a call's writes stay in it). */
  stateAt(root: Uint8Array): Promise<MerkleStateManager> {
    return openWorldState(this.nodes.scratchDb(), root, this.common);
  }

  /**
   * A VM over a throwaway state, for calls, estimates and traces; the watchdog can stop its executions.
   * Its own copy of the Common: every EVM adds a `hardforkChanged` listener to its Common's events and
   * never removes it, so a VM on the shared one would stay reachable from it for good.
   */
  vmOver(state: MerkleStateManager, watchdog: ExecutionWatchdog): Promise<VM> {
    return createDevnetVm(this.common.copy(), state, this.blockHashes, watchdog);
  }

  /** The nonce the sender's next tx must have, counting the txs CheckTx admitted to the mempool. */
  pendingNonce(address: string, committedNonce: bigint): bigint {
    return this.checkState.nonce(address, committedNonce);
  }

  async info(): Promise<InfoResult> {
    return { data: '', version: '', appVersion: APP_VERSION, lastBlockHeight: this.head.height, lastBlockAppHash: this.head.stateRoot };
  }

  async initChain(_validators: ValidatorUpdate[], batch: WriteBatch): Promise<Uint8Array> {
    const state = this.vm.stateManager;
    await state.checkpoint();
    for (const account of devAccounts()) {
      await state.putAccount(createAddressFromString(account.address), createAccount({ nonce: 0n, balance: DEV_ACCOUNT_BALANCE }));
    }
    await state.commit();
    this.head = { height: 0n, stateRoot: await state.getStateRoot() };
    this.nodes.commitInto(batch);
    this.chain.saveGenesis(batch, this.head);
    this.addresses.markIndexed(batch, 0n);
    return this.head.stateRoot;
  }

  async checkTx(bytes: Uint8Array): Promise<CheckTxResult> {
    const decoded = decodeEthTx(bytes, this.common);
    if (decoded.kind === 'foreign') return rejected({ code: Code.txDecode, log: NOT_ETHEREUM });
    if (decoded.kind === 'refused') return rejected(refusalRejection(decoded.reason));
    const { tx } = decoded;
    const sender = checkStateless(tx, decoded.protected, this.rules());
    if (!(sender instanceof Address)) return rejected(sender);
    const account = await (await this.stateAt(this.head.stateRoot)).getAccount(sender);
    const key = sender.toString();
    const balance = (account?.balance ?? 0n) - this.checkState.spent(key);
    const refusal = checkAgainstState(
      tx,
      sender,
      {
        nonce: this.checkState.nonce(key, account?.nonce ?? 0n),
        balance: balance > 0n ? balance : 0n,
        isContract: account !== undefined && !equalsBytes(account.codeHash, KECCAK256_NULL),
      },
      this.nextBaseFee(),
    );
    if (refusal !== undefined) return rejected(refusal);
    this.checkState.admit(key, tx.nonce, costOf(tx));
    return txResult({ gasWanted: tx.gasLimit });
  }

  async prepareProposal(txs: Uint8Array[]): Promise<Uint8Array[]> {
    return txs.filter(isEthTxEnvelope);
  }

  async finalizeBlock(request: FinalizeBlockRequest): Promise<FinalizeBlockResult> {
    const env: BlockEnv = {
      height: request.height,
      timestamp: request.time.seconds,
      gasLimit: this.blockGasLimit,
      baseFee: this.nextBaseFee(),
      coinbase: request.proposerAddress,
    };
    const blockTxs: BlockTx[] = [];
    request.txs.forEach((bytes, position) => {
      const decoded = decodeEthTx(bytes, this.common);
      if (decoded.kind !== 'foreign') blockTxs.push({ position, decoded, nodeTxHash: txHash(bytes) });
    });
    const { record, results, indexed } = await executeBlock(this.vm, this.common, env, request.hash, blockTxs, this.rules());
    this.pending = { record, indexed };
    return {
      events: [],
      txResults: request.txs.map((_, i) => results.get(i) ?? rejected({ code: Code.txDecode, log: NOT_ETHEREUM })),
      validatorUpdates: [],
      appHash: record.stateRoot,
    };
  }

  commit(batch: WriteBatch): void {
    if (this.pending === undefined) throw new Error('commit without a finalized block');
    const { record, indexed } = this.pending;
    this.pending = undefined;
    this.nodes.commitInto(batch);
    this.chain.saveBlock(batch, record);
    this.addresses.index(batch, record.height, indexed);
    this.head = { height: record.height, stateRoot: record.stateRoot };
    this.lastBlock = record;
    this.checkState.reset();
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    return {
      code: Code.notSupported,
      log: 'the EVM application answers no ABCI queries; use the EVM JSON-RPC',
      info: '',
      index: 0n,
      key: request.data,
      value: new Uint8Array(0),
      height: this.head.height,
      codespace: CODESPACE,
    };
  }

  private rules(): StatelessRules {
    return { allowUnprotectedTxs: this.params.allowUnprotectedTxs, blockGasLimit: this.blockGasLimit };
  }
}

function rejected(rejection: TxRejection): CheckTxResult {
  return txResult({ code: rejection.code, log: rejection.log, codespace: CODESPACE });
}
