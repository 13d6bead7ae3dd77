/**
 * broadcast_tx_async, _sync and _commit over the broadcast queue, answered as CometBFT answers them:
 * `_async` once the tx is queued (its hash), `_sync` once the node's check is known (broadcast_tx_sync's
 * result, or the node's error), `_commit` once the tx is in a block or `timeout_broadcast_tx_commit` has
 * passed after the check. A queue worker delivers the tx with the backend's broadcast_tx_sync.
 */
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { BACKEND_SERVICES, type BackendServices } from '../../backends/backend-services';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { EventBus, EventTimeoutError, parseQuery, SubscriptionCanceledError } from '../../events';
import { BROADCAST_QUEUE, sendClock, type BroadcastQueue, type Delivery, type SubmitOptions } from '../../queue/broadcast-queue';
import { nodeAnswer, notDelivered, senderNonce, stillQueued, submitOrRefuse } from '../../queue/submission';
import { ApplicationError } from '../../rpc/errors';
import type { Json, JsonObject } from '../../rpc/json';

/** What an upstream backend subscribes to while a broadcast_tx_commit waits (one upstream subscription for all). */
const TX_EVENTS = "tm.event = 'Tx'";
/** The tx_result of a commit whose check failed: the empty ExecTxResult. */
const EMPTY_TX_RESULT: JsonObject = { code: 0, data: null, log: '', info: '', gas_wanted: '0', gas_used: '0', events: [], codespace: '' };

/** The Tx event's value as the node publishes it. */
interface TxEventValue {
  TxResult: { height: string; result: JsonObject };
}

@Injectable()
export class TxBroadcasts {
  constructor(
    @Inject(BROADCAST_QUEUE) private readonly queue: BroadcastQueue,
    @Inject(BACKEND_SERVICES) private readonly backend: BackendServices,
    private readonly bus: EventBus,
    private readonly config: GatewayConfigService,
  ) {}

  async async(tx: Uint8Array): Promise<JsonObject> {
    const hash = hashOf(tx);
    await this.submit(tx, hash);
    return { code: 0, data: '', log: '', codespace: '', hash };
  }

  async sync(tx: Uint8Array): Promise<JsonObject> {
    const hash = hashOf(tx);
    const delivery = await this.submit(tx, hash, { sentAt: sendClock(), waitMs: this.config.gateway.queue.check_timeout });
    const check = checkOf(delivery, hash, '');
    return { code: check.code, data: check.data, log: check.log, codespace: check.codespace, hash };
  }

  /** Subscribes to the tx's inclusion first, then queues it, then waits for its check and its block. */
  async commit(tx: Uint8Array): Promise<JsonObject> {
    const sentAt = sendClock();
    const hash = hashOf(tx);
    const { check_timeout } = this.config.gateway.queue;
    const commitTimeout = this.config.rpc.timeout_broadcast_tx_commit;
    let release: () => void;
    try {
      release = await this.backend.feedEvents(TX_EVENTS);
    } catch (err) {
      throw new ApplicationError(`failed to subscribe to tx: ${(err as Error).message}`);
    }
    const abort = new AbortController();
    try {
      const query = parseQuery(`tm.event = 'Tx' AND tx.hash = '${hash}'`);
      const included = this.bus.once(query, check_timeout + commitTimeout + 1_000, { signal: abort.signal });
      // Rejections after an abort are expected; the awaited path below handles the others.
      included.catch(() => undefined);
      const check = checkOf(await this.submit(tx, hash, { sentAt, waitMs: check_timeout }), hash, 'error on broadcastTxCommit: ');
      const checkTx: JsonObject = {
        code: check.code,
        data: check.data === '' ? null : Buffer.from(String(check.data), 'hex').toString('base64'),
        log: check.log,
        info: '',
        gas_wanted: '0',
        gas_used: '0',
        events: [],
        codespace: check.codespace,
      };
      if (check.code !== 0) return { check_tx: checkTx, tx_result: EMPTY_TX_RESULT, hash, height: '0' };
      const event = await inTime(included, commitTimeout);
      const value = (event.data as { value: TxEventValue }).value;
      return { check_tx: checkTx, tx_result: value.TxResult.result, hash, height: value.TxResult.height };
    } catch (err) {
      if (err instanceof EventTimeoutError) throw new ApplicationError('timed out waiting for tx to be included in a block');
      if (err instanceof SubscriptionCanceledError) throw new ApplicationError(`txSub was canceled (reason: ${err.reason})`);
      throw err;
    } finally {
      abort.abort();
      release();
    }
  }

  /**
   * Queues the tx, or joins its job (sent while its delivery was under way, it gets that delivery's
   * answer); with `waitMs`, the outcome of that delivery.
   */
  private async submit(tx: Uint8Array, hash: string, options?: SubmitOptions): Promise<Delivery | undefined> {
    const job = { lane: 'node' as const, id: hash, tx: Buffer.from(tx).toString('base64'), ...senderNonce(tx) };
    return (await submitOrRefuse(this.queue, job, options)).delivery;
  }
}

interface Check {
  readonly code: number;
  readonly data: Json;
  readonly log: Json;
  readonly codespace: Json;
}

/**
 * The node's check of the tx (code, data as hex, log, codespace), or the error the caller gets: the
 * node's own (after `errorPrefix`), a delivery that gave up, or the check not known in time.
 */
function checkOf(delivery: Delivery | undefined, hash: string, errorPrefix: string): Check {
  if (delivery === undefined) throw stillQueued(hash);
  switch (delivery.status) {
    case 'failed':
      throw notDelivered(hash, delivery.reason);
    case 'known':
      // The first attempt's answer is the node's answer to this tx; a later one echoes an earlier attempt.
      if (delivery.first) throw prefixed(nodeAnswer(delivery.error), errorPrefix);
      return { code: 0, data: '', log: '', codespace: '' };
    case 'rejected':
      if (delivery.error) throw prefixed(nodeAnswer(delivery.error), errorPrefix);
      return checkFields(delivery.check ?? {});
    case 'accepted':
      return checkFields(delivery.check ?? {});
  }
}

function checkFields(check: JsonObject): Check {
  return { code: Number(check.code ?? 0), data: check.data ?? '', log: check.log ?? '', codespace: check.codespace ?? '' };
}

function prefixed(err: ApplicationError, prefix: string): ApplicationError {
  return prefix === '' ? err : new ApplicationError(prefix + err.message, err.code, err.data);
}

/** CometBFT's tx hash: sha256 of the bytes, upper-case hex. */
function hashOf(tx: Uint8Array): string {
  return createHash('sha256').update(tx).digest('hex').toUpperCase();
}

/** The event, unless `ms` pass first (then an EventTimeoutError). */
function inTime<T>(event: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    event,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new EventTimeoutError(ms)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
