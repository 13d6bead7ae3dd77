import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type EvmBackend, type LogFilter } from '../../backends/evm-backend';
import type { Json } from '../../backends/node-backend';
import type { CallContext, RpcConnection } from '../../rpc/call-context';
import { ApplicationError, InvalidParamsError, RpcError } from '../../rpc/errors';
import type { MethodSpec } from '../../rpc/method-spec';
import { CodecError } from '../codec/codec-error';
import { decodeFilterCriteria } from '../codec/filter-criteria';
import { decodeBool } from '../codec/go-json';
import { param, type MethodTable } from '../core/evm-method';
import type { BlockEvents } from '../filters/block-events';
import { ChainFeed, type BlockListener } from '../filters/chain-feed';
import { checkLiveRange, matchesLog } from '../filters/log-match';
import { newRpcId } from '../filters/rpc-id';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/** Blocks a subscription may fall behind before it is dropped. */
const MAX_BACKLOG = 256;

/** What one subscription sends for a block. */
type Producer = (block: BlockEvents, send: (result: Json) => Promise<unknown> | undefined) => Promise<void>;

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
 * eth_subscribe / eth_unsubscribe over WebSocket: newHeads, logs and newPendingTransactions from the
 * chain feed, one `eth_subscription` notification per header, log or transaction. Subscriptions
 * belong to their connection and end with it.
 */
@Injectable()
export class SubscriptionMethods implements MethodTable {
  private readonly byConnection = new Map<RpcConnection, Map<string, () => void>>();

  constructor(
    private readonly feed: ChainFeed,
    @Inject(EVM_BACKEND) private readonly b: EvmBackend,
  ) {}

  methods(): MethodSpec[] {
    const base = { group: 'eth', websocketOnly: true };
    return [
      {
        ...base,
        name: 'eth_subscribe',
        params: [param('kind', 'any', true), param('options', 'any', true)],
        handler: (a: A, ctx) => this.subscribe(this.producer(a.kind, a.options), ctx),
      },
      { ...base, name: 'eth_unsubscribe', params: [param('id', 'id')], handler: (a: A, ctx) => this.unsubscribe(a.id, ctx) },
    ];
  }

  private producer(kind: unknown, options: unknown): Producer {
    if (typeof kind !== 'string') throw new InvalidParamsError('expected subscription name as first argument');
    switch (kind) {
      case 'newHeads':
        if (options !== undefined) throw new InvalidParamsError('too many arguments, want at most 1');
        return async (block, send) => {
          const header = await block.header();
          if (header) await send(header);
        };
      case 'logs': {
        const criteria: LogFilter = options === undefined ? {} : argument(decodeFilterCriteria, options);
        checkLiveRange(criteria);
        return async (block, send) => {
          for (const log of await block.logs()) if (matchesLog(criteria, log)) await send(log);
        };
      }
      case 'newPendingTransactions': {
        const fullTransactions = options === undefined ? false : argument((v) => decodeBool(v), options);
        return async (block, send) => {
          for (const hash of await block.transactionHashes()) await send(fullTransactions ? await this.b.getTransactionByHash(hash) : hash);
        };
      }
      case 'syncing':
        throw new RpcError(-32601, 'syncing subscription is not implemented');
      default:
        throw new RpcError(-32601, `no ${JSON.stringify(kind)} subscription in eth namespace`);
    }
  }

  private subscribe(produce: Producer, ctx: CallContext): string {
    const connection = this.connectionOf(ctx);
    const id = newRpcId();
    const send = (result: Json) => connection.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result } }));
    const listener: BlockListener = {
      onBlock: (block) => produce(block, send),
      onOverflow: () => {
        this.subscriptionsOf(connection).delete(id);
        const error = { code: -32000, message: 'subscription dropped: the client does not keep up with notifications' };
        void connection.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, error } }));
      },
    };
    this.subscriptionsOf(connection).set(id, this.feed.attach(listener, MAX_BACKLOG));
    return id;
  }

  private unsubscribe(id: string, ctx: CallContext): boolean {
    const subscriptions = this.byConnection.get(this.connectionOf(ctx));
    const detach = subscriptions?.get(id);
    if (!detach) return false;
    subscriptions?.delete(id);
    detach();
    return true;
  }

  private subscriptionsOf(connection: RpcConnection): Map<string, () => void> {
    let subscriptions = this.byConnection.get(connection);
    if (!subscriptions) {
      const mine = new Map<string, () => void>();
      this.byConnection.set(connection, mine);
      connection.onClose(() => {
        for (const detach of mine.values()) detach();
        this.byConnection.delete(connection);
      });
      subscriptions = mine;
    }
    return subscriptions;
  }

  private connectionOf(ctx: CallContext): RpcConnection {
    if (!ctx.connection) throw new ApplicationError('notifications not supported');
    return ctx.connection;
  }
}
