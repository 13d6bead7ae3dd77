/**
 * How a queued tx reaches the node: the node's own broadcast_tx_sync or eth_sendRawTransaction, invoked
 * through whichever backend runs. The node's answer decides the job:
 *
 * - taken (node lane: broadcast_tx_sync's answer with code 0): delivered;
 * - "already in the mempool / already known": delivered, the node had it;
 * - the backend was unavailable (no healthy upstream, connection refused, timeout) or busy (mempool
 *   full): tried again later;
 * - anything else the node answered (check_tx code ≠ 0, nonce too low, insufficient funds, …): refused
 *   for good, and that answer goes to the callers as the node gave it.
 *
 * A retry that is refused may be refused because an earlier attempt got through (its answer was lost
 * to a timeout, or a worker died before recording it): a retry asks the node for the tx before
 * calling it a refusal.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { BackendUnavailableError } from '../backends/backend-errors';
import { eth_getTransactionByHash } from '../evm-rpc/eth/blocks.methods';
import { eth_sendRawTransaction } from '../evm-rpc/eth/send.methods';
import { tx as nodeTx } from '../node-rpc/info/info.methods';
import { broadcast_tx_sync } from '../node-rpc/tx/tx.methods';
import type { Invoker } from '../rpc/invoker';
import { INVOKER } from '../rpc/registration';
import { RpcError } from '../rpc/errors';
import type { Json, JsonObject } from '../rpc/json';
import { RetryLater, type BroadcastJob, type Delivery, type NodeError } from './broadcast-queue';

/** The node had the tx already (CometBFT's cache, go-ethereum's pool, Cosmos-EVM's mempool). */
const KNOWN = /tx already exists in cache|already known|already in mempool|known transaction/i;
/** The node is there but cannot take txs now: later. */
const BUSY = /mempool is full|txpool is full/i;

@Injectable()
export class BackendDelivery {
  constructor(
    // Both backends are there in the gateway; an app of one interface (tests) has the one it serves.
    @Optional() @Inject(INVOKER.node) private readonly nodeInvoker?: Invoker,
    @Optional() @Inject(INVOKER.evm) private readonly evmInvoker?: Invoker,
  ) {}

  private get node(): Invoker {
    if (!this.nodeInvoker) throw new RetryLater('no node RPC backend in this process');
    return this.nodeInvoker;
  }

  private get evm(): Invoker {
    if (!this.evmInvoker) throw new RetryLater('no EVM backend in this process');
    return this.evmInvoker;
  }

  /** Delivers one job (see the file's comment); throws RetryLater when it is to be tried again. */
  readonly deliver = async (job: BroadcastJob, first: boolean): Promise<Delivery> => {
    const tx = Buffer.from(job.tx, 'base64');
    if (job.lane === 'node') {
      let check: JsonObject;
      try {
        check = await this.node.invoke(broadcast_tx_sync, { tx });
      } catch (err) {
        return this.refusal(job, err, first);
      }
      if (Number(check.code ?? 0) === 0) return { status: 'accepted', check: { ...check } };
      if (!first && (await this.onChain(job))) return { status: 'known', first, error: { code: -32000, message: String(check.log ?? '') } };
      return { status: 'rejected', check: { ...check } };
    }
    try {
      await this.evm.invoke(eth_sendRawTransaction, { data: `0x${tx.toString('hex')}` });
      return { status: 'accepted' };
    } catch (err) {
      return this.refusal(job, err, first);
    }
  };

  private async refusal(job: BroadcastJob, err: unknown, first: boolean): Promise<Delivery> {
    // Not an answer of the node (a connection failure of a devnet follower's leader, a bug): later.
    if (!(err instanceof RpcError) || err instanceof BackendUnavailableError) throw new RetryLater(messageOf(err));
    const error = nodeError(err);
    if (BUSY.test(error.message)) throw new RetryLater(error.message);
    if (KNOWN.test(error.message)) return { status: 'known', first, error };
    if (!first && (await this.onChain(job))) return { status: 'known', first, error };
    return { status: 'rejected', error };
  }

  /** The node has the tx (in a block, or in its mempool for the EVM); false when it cannot say. */
  private async onChain(job: BroadcastJob): Promise<boolean> {
    try {
      if (job.lane === 'evm') return (await this.evm.invoke(eth_getTransactionByHash, { hash: job.id })) !== null;
      await this.node.invoke(nodeTx, { hash: Buffer.from(job.id, 'hex'), prove: false });
      return true;
    } catch {
      return false;
    }
  }
}

function nodeError(err: RpcError): NodeError {
  return err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data as Json };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
