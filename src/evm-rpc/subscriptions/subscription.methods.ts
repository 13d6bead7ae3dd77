import { Inject, Injectable, Optional } from '@nestjs/common';
import { AccessService } from '../../access/access.service';
import { GatewayConfigService } from '../../config/gateway-config.service';
import type { LogFilter } from '../evm-types';
import { eth_getTransactionByHash } from '../eth/blocks.methods';
import { MetricsService } from '../../metrics/metrics.service';
import type { CallContext, NotificationPort } from '../../rpc/call-context';
import { ApplicationError, InvalidParamsError, RpcError } from '../../rpc/errors';
import type { Json } from '../../rpc/json';
import { defineMethod, optional, param, type AnyMethod } from '../../rpc/method';
import type { Invoker } from '../../rpc/invoker';
import { INVOKER, type MethodSource } from '../../rpc/registration';
import { CodecError } from '../codec/codec-error';
import * as c from '../codec/codecs';
import { decodeFilterCriteria } from '../codec/filter-criteria';
import { decodeBool } from '../codec/go-json';
import type { BlockEvents } from '../filters/block-events';
import { ChainFeed } from '../filters/chain-feed';
import { checkLiveRange, matchesLog } from '../filters/log-match';
import { newRpcId } from '../filters/rpc-id';

/** Blocks a subscription may fall behind before it is dropped. */
const MAX_BACKLOG = 256;
const NOT_COUNTED = (): void => undefined;

/** The kinds of subscription eth_subscribe serves (the `kind` label of the subscriptions gauge). */
type SubscriptionKind = 'newHeads' | 'logs' | 'newPendingTransactions';

/** What one subscription sends for a block. */
type Producer = (block: BlockEvents, send: (result: Json) => Promise<boolean> | undefined) => Promise<void>;

/**
 * What starts a subscription's source: given how to send a result (resolves as the connection's send does)
 * and how to end the subscription with an error, it returns what stops the source.
 */
export type SubscriptionStart = (send: (result: Json) => Promise<boolean> | undefined, drop: (error: RpcError) => void) => () => void;

/** A subscription's kind and what it sends. */
interface SubscriptionPlan {
  readonly kind: SubscriptionKind;
  readonly produce: Producer;
}

/** A kind's argument (position 1), decoded with go-ethereum's `invalid argument 1:` wording. */
function argument<T>(decode: (value: unknown) => T, value: unknown): T {
  try {
    return decode(value);
  } catch (err) {
    if (err instanceof CodecError) throw new InvalidParamsError(`invalid argument 1: ${err.message}`);
    throw err;
  }
}

/**
 * eth_subscribe / eth_unsubscribe: newHeads, logs and newPendingTransactions from the chain feed, one
 * `eth_subscription` notification per header, log or transaction. Subscriptions belong to their
 * connection and end with it. eth_subscribe needs a WebSocket; eth_unsubscribe over HTTP finds no
 * subscription, as in go-ethereum.
 */
@Injectable()
export class SubscriptionMethods implements MethodSource {
  /** Per connection (its subscriber id): the end of each of its subscriptions, by subscription id. */
  private readonly byConnection = new Map<string, Map<string, () => void>>();

  constructor(
    private readonly feed: ChainFeed,
    @Inject(INVOKER.evm) private readonly evm: Invoker,
    @Optional() private readonly metrics?: MetricsService,
    @Optional() private readonly access?: AccessService,
    @Optional() private readonly config?: GatewayConfigService,
  ) {}

  methods(): AnyMethod[] {
    const group = 'eth';
    return [
      defineMethod({
        group,
        name: 'eth_subscribe',
        websocketOnly: true,
        params: [optional('kind', c.any), optional('options', c.any)],
        handler: (a, ctx) => this.subscribe(this.plan(a.kind, a.options), ctx),
      }),
      defineMethod({ group, name: 'eth_unsubscribe', params: [param('id', c.id)], handler: (a, ctx) => this.unsubscribe(a.id, ctx) }),
    ];
  }

  private plan(kind: unknown, options: unknown): SubscriptionPlan {
    if (typeof kind !== 'string') throw new InvalidParamsError('expected subscription name as first argument');
    switch (kind) {
      case 'newHeads':
        if (options !== undefined) throw new InvalidParamsError('too many arguments, want at most 1');
        return {
          kind,
          produce: async (block, send) => {
            const header = await block.header();
            if (header) await send(header);
          },
        };
      case 'logs': {
        const criteria: LogFilter = options === undefined ? {} : argument(decodeFilterCriteria, options);
        checkLiveRange(criteria);
        return {
          kind,
          produce: async (block, send) => {
            for (const log of await block.logs()) if (matchesLog(criteria, log)) await send(log);
          },
        };
      }
      case 'newPendingTransactions': {
        const fullTransactions = options === undefined ? false : argument((v) => decodeBool(v), options);
        return {
          kind,
          produce: async (block, send) => {
            for (const hash of await block.transactionHashes()) await send(fullTransactions ? await this.evm.invoke(eth_getTransactionByHash, { hash }) : hash);
          },
        };
      }
      case 'syncing':
        throw new RpcError(-32601, 'syncing subscription is not implemented');
      default:
        throw new RpcError(-32601, `no ${JSON.stringify(kind)} subscription in eth namespace`);
    }
  }

  private subscribe(plan: SubscriptionPlan, ctx: CallContext): string {
    return this.open(ctx, plan.kind, (send, drop) =>
      this.feed.attach(
        {
          onBlock: (block) => plan.produce(block, send),
          // The feed has detached the listener already.
          onOverflow: () => drop(new ApplicationError('subscription dropped: the client does not keep up with notifications')),
        },
        MAX_BACKLOG,
      ),
    );
  }

  /**
   * Opens a subscription on the caller's WebSocket connection, as eth_subscribe does for every kind (a
   * plugin's too): the connection's cap, the per-IP place and the subscriptions gauge (by `kind`) are taken, `start` gets how to
   * send a result and how to end the subscription with an error, and returns what stops its source; the
   * answer is the gateway-made id, which eth_unsubscribe and the connection's close end.
   */
  open(ctx: CallContext, kind: string, start: SubscriptionStart): string {
    // websocketOnly keeps HTTP calls out; this only guards a transport without notifications.
    if (!ctx.notifications) throw new ApplicationError('notifications not supported');
    const port = ctx.notifications;
    const subscriptions = this.subscriptionsOf(port);
    const perConnection = this.config?.gateway.limits.max_evm_subscriptions_per_connection ?? 0;
    if (perConnection > 0 && subscriptions.size >= perConnection) throw new ApplicationError(`max_evm_subscriptions_per_connection ${perConnection} reached`);
    // `[limits] max_subscriptions_per_ip`, taken synchronously: pipelined eth_subscribe calls cannot pass it.
    const place = this.access?.placeFor('evm', 'subscriptions', ctx.caller?.ip) ?? NOT_COUNTED;
    const id = newRpcId();
    const stream = port.stream(id);
    const counted = this.metrics?.subscriptionOpened('evm', kind) ?? NOT_COUNTED;
    const ended = () => {
      counted();
      place();
    };
    let stop: () => void = NOT_COUNTED;
    subscriptions.set(id, () => {
      stop();
      ended();
    });
    const drop = (error: RpcError) => {
      if (subscriptions.get(id) === undefined) return;
      subscriptions.delete(id);
      ended();
      stream.fail(error);
    };
    try {
      stop = start((result) => stream.send(JSON.stringify(result)), drop);
    } catch (err) {
      subscriptions.delete(id);
      ended();
      throw err;
    }
    return id;
  }

  private unsubscribe(id: string, ctx: CallContext): boolean {
    // Over HTTP there is no subscription to end: go-ethereum's answer.
    if (!ctx.notifications) throw new ApplicationError('subscription not found');
    const subscriptions = this.byConnection.get(ctx.notifications.subscriber);
    const end = subscriptions?.get(id);
    if (!end) return false;
    subscriptions?.delete(id);
    end();
    return true;
  }

  private subscriptionsOf(port: NotificationPort): Map<string, () => void> {
    const subscriber = port.subscriber;
    let subscriptions = this.byConnection.get(subscriber);
    if (!subscriptions) {
      const mine = new Map<string, () => void>();
      this.byConnection.set(subscriber, mine);
      port.onClose(() => {
        for (const end of mine.values()) end();
        // Only this connection's map: a later connection from the same address has its own.
        if (this.byConnection.get(subscriber) === mine) this.byConnection.delete(subscriber);
      });
      subscriptions = mine;
    }
    return subscriptions;
  }
}
