/**
 * Executes the Ethereum transactions of a block on the live state, in block order: each tx is checked
 * again (the block decides, whatever CheckTx said), then run by the VM. A tx that fails a check does not
 * execute and gets a non-zero code; a tx that executes is in the EVM block whether its call succeeded
 * or reverted. The result is the EVM side of the block (receipts, roots, bloom, state root), the
 * ABCI result of each of its txs, and who took part in each executed tx (for the address index).
 */
import { RLP } from '@ethereumjs/rlp';
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import type { TypedTransaction } from '@ethereumjs/tx';
import { createContractAddress, KECCAK256_NULL, equalsBytes, type Address } from '@ethereumjs/util';
import { Bloom, encodeReceipt, runTx, type VM } from '@ethereumjs/vm';
import type { ExecTxResult } from '../../chain/types';
import type { EvmBlockRecord, EvmTxRecord } from '../../evm-state/evm-chain-store';
import type { IndexedTx } from '../../indexer/address-index';
import { ActivityRecorder } from '../../indexer/tx-activity';
import { txResult } from '../results';
import { type EthTxDecoding } from './eth-tx';
import { blockOf, type BlockEnv } from './execution-context';
import { checkAgainstState, checkStateless, Code, CODESPACE, effectiveGasPrice, refusalRejection, type StatelessRules, type TxRejection } from './tx-checks';
import { ethereumTxEvents } from './tx-events';
import { vmErrorText } from './vm-errors';

export interface BlockTx {
  /** Index in the node block's `data.txs`. */
  position: number;
  decoded: EthTxDecoding & { kind: 'tx' | 'refused' };
  /** CometBFT's hash of the tx bytes. */
  nodeTxHash: Uint8Array;
}

export interface ExecutedBlock {
  record: EvmBlockRecord;
  /** By position in the node block. */
  results: Map<number, ExecTxResult>;
  /** What the address index takes of each executed tx, in EVM order (recorded as it ran). */
  indexed: IndexedTx[];
}

/** Code of a tx the VM could not run although it passed the checks (sdk ErrInternal). */
const CODE_INTERNAL = 1;

export async function executeBlock(
  vm: VM,
  common: Common,
  env: BlockEnv,
  blockHash: Uint8Array,
  txs: BlockTx[],
  rules: StatelessRules,
): Promise<ExecutedBlock> {
  const block = blockOf(env, common);
  const results = new Map<number, ExecTxResult>();
  const executed: { tx: TypedTransaction; record: EvmTxRecord; receipt: Uint8Array; bloom: Uint8Array }[] = [];
  const indexed: IndexedTx[] = [];
  let gasUsed = 0n;
  let logCount = 0;

  for (const { position, decoded, nodeTxHash } of txs) {
    if (decoded.kind === 'refused') {
      results.set(position, rejected(refusalRejection(decoded.reason), 0n));
      continue;
    }
    const { tx } = decoded;
    const sender = checkStateless(tx, decoded.protected, rules);
    if (!isAddress(sender)) {
      results.set(position, rejected(sender, tx.gasLimit));
      continue;
    }
    if (gasUsed + tx.gasLimit > env.gasLimit) {
      results.set(position, rejected({ code: Code.invalidGasLimit, log: 'gas limit reached' }, tx.gasLimit));
      continue;
    }
    const account = await vm.stateManager.getAccount(sender);
    const refusal = checkAgainstState(
      tx,
      sender,
      { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n, isContract: account !== undefined && !equalsBytes(account.codeHash, KECCAK256_NULL) },
      env.baseFee,
    );
    if (refusal !== undefined) {
      results.set(position, rejected(refusal, tx.gasLimit));
      continue;
    }
    let run;
    const recorder = new ActivityRecorder();
    const detach = recorder.attach(vm);
    try {
      run = await runTx(vm, { tx, block, blockGasUsed: gasUsed, skipHardForkValidation: true });
    } catch (err) {
      results.set(position, rejected({ code: CODE_INTERNAL, log: (err as Error).message }, tx.gasLimit));
      continue;
    } finally {
      detach();
    }
    gasUsed += run.totalGasSpent;
    const failure = run.execResult.exceptionError;
    const record: EvmTxRecord = {
      hash: tx.hash(),
      position,
      type: tx.type,
      from: sender.bytes,
      to: tx.to?.bytes,
      contractAddress: tx.to === undefined ? createContractAddress(sender, tx.nonce).bytes : undefined,
      status: failure === undefined ? 1 : 0,
      gasUsed: run.totalGasSpent,
      cumulativeGasUsed: gasUsed,
      effectiveGasPrice: effectiveGasPrice(tx, env.baseFee),
      logs: (run.execResult.logs ?? []).map(([address, topics, data]) => ({ address, topics, data })),
      vmError: failure === undefined ? undefined : vmErrorText(failure),
      returnData: failure === undefined ? undefined : run.execResult.returnValue,
    };
    const events = ethereumTxEvents(record, {
      height: env.height,
      blockHash,
      index: executed.length,
      firstLogIndex: logCount,
      nodeTxHash,
      value: tx.value,
    });
    logCount += record.logs.length;
    executed.push({ tx, record, receipt: encodeReceipt(run.receipt, tx.type), bloom: run.bloom.bitvector });
    indexed.push({ hash: record.hash, sender: sender.bytes, nonce: tx.nonce, activity: recorder.activity() });
    results.set(position, txResult({ gasWanted: tx.gasLimit, gasUsed: run.totalGasSpent, events }));
  }

  const bloom = new Bloom();
  for (const { bloom: txBloom } of executed) bloom.or(new Bloom(txBloom));
  const record: EvmBlockRecord = {
    height: env.height,
    stateRoot: await vm.stateManager.getStateRoot(),
    baseFee: env.baseFee,
    gasLimit: env.gasLimit,
    gasUsed,
    bloom: bloom.bitvector,
    transactionsRoot: await orderedTrieRoot(executed.map((e) => e.tx.serialize())),
    receiptsRoot: await orderedTrieRoot(executed.map((e) => e.receipt)),
    txs: executed.map((e) => e.record),
  };
  return { record, results, indexed };
}

/** The root of a trie keyed by RLP(index), as transactionsRoot and receiptsRoot are built. */
export async function orderedTrieRoot(items: Uint8Array[]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (const [i, item] of items.entries()) await trie.put(RLP.encode(i), item);
  return trie.root();
}

function rejected(rejection: TxRejection, gasWanted: bigint): ExecTxResult {
  return txResult({ code: rejection.code, log: rejection.log, codespace: CODESPACE, gasWanted });
}

function isAddress(value: Address | TxRejection): value is Address {
  return !('code' in value);
}
