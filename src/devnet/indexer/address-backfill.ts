/**
 * Catches the address index up with the chain when a database holds EVM blocks it has not indexed
 * (one written before the index existed): each such block's Ethereum txs run again, in order, on the
 * state before the block and in the block's own context, with the activity recorder attached, and the
 * block's entries are written with the indexed height, block by block (an interrupted catch-up goes on
 * from where it stopped).
 */
import { runTx } from '@ethereumjs/vm';
import { decodeEthTx } from '../app/evm/eth-tx';
import type { EvmApplication } from '../app/evm/evm-application';
import { blockOf } from '../app/evm/execution-context';
import { ExecutionWatchdog } from '../app/evm/execution-watchdog';
import type { ChainStore } from '../store/chain-store';
import type { Database } from '../store/database';
import type { IndexedTx } from './address-index';
import { ActivityRecorder } from './tx-activity';

/** Indexes the blocks after the indexed height up to the EVM head; returns how many blocks had txs. */
export async function catchUpAddressIndex(db: Database, store: ChainStore, evm: EvmApplication, firstHeight: bigint): Promise<number> {
  const head = evm.committedHead.height;
  const indexed = await evm.addresses.indexedHeight();
  if (indexed !== undefined && indexed >= head) return 0;
  let height = indexed === undefined || indexed < firstHeight ? firstHeight : indexed + 1n;
  let stateRoot = height === firstHeight ? (await evm.chain.loadGenesis())?.stateRoot : (await evm.chain.loadBlock(height - 1n))?.stateRoot;
  let replayed = 0;
  for (; height <= head; height++) {
    const record = await evm.chain.loadBlock(height);
    if (record === undefined) continue;
    const batch = db.batch();
    if (record.txs.length > 0) {
      if (stateRoot === undefined) throw new Error(`cannot index the EVM txs of block ${height}: the state before it is missing`);
      evm.addresses.index(batch, height, await replay(store, evm, height, stateRoot));
      replayed++;
    } else {
      evm.addresses.markIndexed(batch, height);
    }
    await batch.write();
    stateRoot = record.stateRoot;
  }
  const done = db.batch();
  evm.addresses.markIndexed(done, head);
  await done.write();
  return replayed;
}

async function replay(store: ChainStore, evm: EvmApplication, height: bigint, stateRoot: Uint8Array): Promise<IndexedTx[]> {
  const [record, meta, node] = await Promise.all([evm.chain.loadBlock(height), store.loadMeta(height), store.loadBlock(height)]);
  if (record === undefined || meta === undefined || node === undefined) throw new Error(`block ${height} is missing from the store`);
  const vm = await evm.vmOver(await evm.stateAt(stateRoot), new ExecutionWatchdog());
  const block = blockOf(
    { height, timestamp: meta.header.time.seconds, gasLimit: record.gasLimit, baseFee: record.baseFee, coinbase: meta.header.proposerAddress },
    vm.common,
  );
  const indexed: IndexedTx[] = [];
  let gasUsed = 0n;
  for (const txRecord of record.txs) {
    const decoded = decodeEthTx(node.txs[txRecord.position], evm.common);
    if (decoded.kind !== 'tx') throw new Error(`an executed tx of block ${height} no longer decodes`);
    const recorder = new ActivityRecorder();
    const detach = recorder.attach(vm);
    try {
      gasUsed += (await runTx(vm, { tx: decoded.tx, block, blockGasUsed: gasUsed, skipHardForkValidation: true })).totalGasSpent;
    } finally {
      detach();
    }
    indexed.push({ hash: txRecord.hash, sender: txRecord.from, nonce: decoded.tx.nonce, activity: recorder.activity() });
  }
  return indexed;
}
