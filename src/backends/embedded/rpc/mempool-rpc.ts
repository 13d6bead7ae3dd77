/** The Tx routes and the mempool reads (rpc/core/mempool.go). */
import { Logger } from '@nestjs/common';
import type { JsonObject } from '../../../rpc/json';
import { ApplicationError } from '../../../rpc/errors';
import { EventBus, EventTimeoutError, parseQuery, SubscriptionCanceledError } from '../../../events';
import type { CheckTxResult } from '../../../devnet/app/application';
import { txResult } from '../../../devnet/app/results';
import { txHash } from '../../../devnet/chain/hashing';
import { hexJson } from '../../../devnet/chain/wire';
import type { Devnet } from '../../../devnet/devnet';
import { MempoolError } from '../../../devnet/mempool/mempool';
import { txResultJson } from '../wire/abci-json';
import { perPageOf } from './paging';

/** The Tx event's value as the block producer publishes it. */
interface TxEventValue {
  TxResult: { height: string; result: JsonObject };
}

export class MempoolRpc {
  private readonly logger = new Logger('EmbeddedDevnet');

  constructor(
    private readonly devnet: Devnet,
    private readonly bus: EventBus,
    /** timeout_broadcast_tx_commit, in milliseconds. */
    private readonly commitTimeoutMs: number,
  ) {}

  /** CheckTx straight against the application; the mempool is not involved. */
  async checkTx(tx: Uint8Array): Promise<JsonObject> {
    return txResultJson(await this.devnet.app.checkTx(tx));
  }

  async broadcastTxAsync(tx: Uint8Array): Promise<JsonObject> {
    this.admit(tx).catch((err: unknown) => this.logger.error(`CheckTx of ${hexJson(txHash(tx))} failed: ${String(err)}`));
    return { code: 0, data: '', log: '', codespace: '', hash: hexJson(txHash(tx)) };
  }

  async broadcastTxSync(tx: Uint8Array): Promise<JsonObject> {
    const res = await this.admit(tx);
    return { code: res.code, data: hexJson(res.data), log: res.log, codespace: res.codespace, hash: hexJson(txHash(tx)) };
  }

  /** Subscribes to the tx's inclusion first, then checks it in, then waits for the block. */
  async broadcastTxCommit(tx: Uint8Array): Promise<JsonObject> {
    const hash = hexJson(txHash(tx));
    const abort = new AbortController();
    let included: Promise<{ data: unknown }>;
    try {
      included = this.bus.once(parseQuery(`tm.event = 'Tx' AND tx.hash = '${hash}'`), this.commitTimeoutMs, { signal: abort.signal });
    } catch (err) {
      throw new ApplicationError(`failed to subscribe to tx: ${err instanceof Error ? err.message : String(err)}`);
    }
    // Rejections after an abort are expected; the awaited path below handles the others.
    included.catch(() => undefined);
    let checked: CheckTxResult;
    try {
      checked = await this.devnet.intake.add(tx);
    } catch (err) {
      abort.abort();
      if (err instanceof MempoolError) throw new ApplicationError(`error on broadcastTxCommit: ${err.message}`);
      throw err;
    }
    const reply = (executed: JsonObject, height: string): JsonObject => ({
      check_tx: txResultJson(checked),
      tx_result: executed,
      hash,
      height,
    });
    if (checked.code !== 0) {
      abort.abort();
      return reply(txResultJson(txResult()), '0');
    }
    try {
      const event = (await included).data as { value: TxEventValue };
      return reply(event.value.TxResult.result, event.value.TxResult.height);
    } catch (err) {
      if (err instanceof EventTimeoutError) throw new ApplicationError('timed out waiting for tx to be included in a block');
      if (err instanceof SubscriptionCanceledError) throw new ApplicationError(`txSub was canceled (reason: ${err.reason})`);
      throw err;
    }
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

  /**
   * Admission (the mempool's, or a follower's leader's) with its errors as the node's texts. The
   * mempool's own checks throw at once, so that broadcast_tx_async can answer them.
   */
  private admit(tx: Uint8Array): Promise<CheckTxResult> {
    try {
      return this.devnet.intake.add(tx).catch((err: unknown) => {
        throw nodeError(err);
      });
    } catch (err) {
      throw nodeError(err);
    }
  }
}

function nodeError(err: unknown): unknown {
  return err instanceof MempoolError ? new ApplicationError(err.message) : err;
}
