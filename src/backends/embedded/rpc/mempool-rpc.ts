/**
 * The node's CheckTx and broadcast_tx_sync (how the broadcast queue hands a tx to the devnet) and the
 * mempool reads (rpc/core/mempool.go).
 */
import type { JsonObject } from '../../../rpc/json';
import { ApplicationError } from '../../../rpc/errors';
import type { CheckTxResult } from '../../../devnet/app/application';
import { txHash } from '../../../devnet/chain/hashing';
import { hexJson } from '../../../devnet/chain/wire';
import type { Devnet } from '../../../devnet/devnet';
import { MempoolError } from '../../../devnet/mempool/mempool';
import { txResultJson } from '../wire/abci-json';
import { perPageOf } from './paging';

export class MempoolRpc {
  constructor(private readonly devnet: Devnet) {}

  /** CheckTx straight against the application; the mempool is not involved. */
  async checkTx(tx: Uint8Array): Promise<JsonObject> {
    return txResultJson(await this.devnet.app.checkTx(tx));
  }

  async broadcastTxSync(tx: Uint8Array): Promise<JsonObject> {
    const res = await this.admit(tx);
    return { code: res.code, data: hexJson(res.data), log: res.log, codespace: res.codespace, hash: hexJson(txHash(tx)) };
  }

  /** The oldest `limit` txs (30 by default, at most 100). */
  async unconfirmedTxs(limit?: number): Promise<JsonObject> {
    const { mempool } = this.devnet;
    const txs = mempool.list(perPageOf(limit));
    return {
      n_txs: txs.length.toString(),
      total: mempool.size.toString(),
      total_bytes: mempool.sizeBytes.toString(),
      txs: txs.map((tx) => Buffer.from(tx).toString('base64')),
    };
  }

  async numUnconfirmedTxs(): Promise<JsonObject> {
    const { mempool } = this.devnet;
    return { n_txs: mempool.size.toString(), total: mempool.size.toString(), total_bytes: mempool.sizeBytes.toString(), txs: null };
  }

  async unsafeFlushMempool(): Promise<JsonObject> {
    this.devnet.mempool.flush();
    return {};
  }

  /** Admission (the mempool's, or a follower's leader's) with its errors as the node's texts. */
  private async admit(tx: Uint8Array): Promise<CheckTxResult> {
    try {
      return await this.devnet.intake.add(tx);
    } catch (err) {
      throw err instanceof MempoolError ? new ApplicationError(err.message) : err;
    }
  }
}
