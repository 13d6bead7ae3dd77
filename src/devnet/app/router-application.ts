/**
 * The devnet's application when it runs an EVM: Ethereum transactions go to the EVM application,
 * every other tx to the kvstore, each keeping its own rules and results; a block's results keep the
 * block's tx order. Queries are the kvstore's.
 *
 * App hash: the CometBFT simple merkle root of [kvstore app hash, EVM state root], as a Cosmos
 * multistore commits to the roots of its stores; it changes whenever either state changes.
 */
import type { WriteBatch } from '../store/database';
import { merkleRoot } from '../chain/merkle';
import type { Application, CheckTxResult, FinalizeBlockRequest, FinalizeBlockResult, InfoResult, QueryRequest, QueryResult, ValidatorUpdate } from './application';
import { isEthTxEnvelope } from './evm/eth-tx';
import type { EvmApplication } from './evm/evm-application';

export class RouterApplication implements Application {
  constructor(
    readonly kvstore: Application,
    readonly evm: EvmApplication,
  ) {}

  async info(): Promise<InfoResult> {
    const kv = await this.kvstore.info();
    const evm = await this.evm.info();
    return { ...kv, lastBlockAppHash: combinedAppHash(kv.lastBlockAppHash, evm.lastBlockAppHash) };
  }

  async initChain(validators: ValidatorUpdate[], batch: WriteBatch): Promise<Uint8Array> {
    const kv = await this.kvstore.initChain(validators, batch);
    const evm = await this.evm.initChain(validators, batch);
    return combinedAppHash(kv, evm);
  }

  checkTx(tx: Uint8Array): Promise<CheckTxResult> {
    return this.appFor(tx).checkTx(tx);
  }

  async prepareProposal(txs: Uint8Array[]): Promise<Uint8Array[]> {
    const proposed: Uint8Array[] = [];
    for (const tx of txs) proposed.push(...(await this.appFor(tx).prepareProposal([tx])));
    return proposed;
  }

  async finalizeBlock(request: FinalizeBlockRequest): Promise<FinalizeBlockResult> {
    const kvTxs = request.txs.filter((tx) => !isEthTxEnvelope(tx));
    const kv = await this.kvstore.finalizeBlock({ ...request, txs: kvTxs });
    // The EVM application sees the whole block, so that its records keep each tx's place in it.
    const evm = await this.evm.finalizeBlock(request);
    let kvIndex = 0;
    return {
      events: [...kv.events, ...evm.events],
      txResults: request.txs.map((tx, i) => (isEthTxEnvelope(tx) ? evm.txResults[i] : kv.txResults[kvIndex++])),
      validatorUpdates: [...kv.validatorUpdates, ...evm.validatorUpdates],
      appHash: combinedAppHash(kv.appHash, evm.appHash),
    };
  }

  commit(batch: WriteBatch): void {
    this.kvstore.commit(batch);
    this.evm.commit(batch);
  }

  query(request: QueryRequest): Promise<QueryResult> {
    return this.kvstore.query(request);
  }

  private appFor(tx: Uint8Array): Application {
    return isEthTxEnvelope(tx) ? this.evm : this.kvstore;
  }
}

export function combinedAppHash(kvstoreHash: Uint8Array, evmStateRoot: Uint8Array): Uint8Array {
  return merkleRoot([kvstoreHash, evmStateRoot]);
}
