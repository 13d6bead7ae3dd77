import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { EventBus, parseQuery, type BusEvent } from '../../events';
import type { Invoker } from '../../rpc/invoker';
import { INVOKER } from '../../rpc/registration';
import { BlockEvents } from './block-events';

export interface BlockListener {
  /** Called for each committed block in order; the next block waits for the returned promise. */
  onBlock(block: BlockEvents): Promise<void> | void;
  /** Called once when the listener fell `maxBacklog` blocks behind and was detached. */
  onOverflow(): void;
}

const SUBSCRIBER = 'evm-rpc';
const NEW_BLOCK = parseQuery("tm.event = 'NewBlock'");
/** NewBlock events the bus may hold for the feed; the feed only hands them on, so this is never reached. */
const BUS_BUFFER = 10_000;

/** One listener's ordered backlog of blocks. */
class ListenerQueue {
  private backlog = 0;
  private tail: Promise<void> = Promise.resolve();
  stopped = false;

  constructor(
    private readonly listener: BlockListener,
    private readonly maxBacklog: number,
    private readonly logger: Logger,
  ) {}

  /** False when the listener is too far behind to take another block. */
  push(block: BlockEvents): boolean {
    if (this.backlog >= this.maxBacklog) return false;
    this.backlog++;
    this.tail = this.tail
      .then(() => (this.stopped ? undefined : this.listener.onBlock(block)))
      .catch((err: unknown) => this.logger.warn(`block ${block.height}: ${(err as Error).message}`))
      .finally(() => this.backlog--);
    return true;
  }
}

/**
 * The EVM RPC's view of the event bus: one subscription to NewBlock, held while anyone listens, fanned
 * out to filters and subscriptions. Each listener has its own bounded backlog, so a slow one (a
 * WebSocket client that does not read) is dropped without holding back the others.
 */
@Injectable()
export class ChainFeed implements OnModuleDestroy {
  private readonly logger = new Logger('EvmChainFeed');
  private readonly queues = new Map<BlockListener, ListenerQueue>();
  private subscribed = false;

  constructor(
    private readonly bus: EventBus,
    @Inject(INVOKER.evm) private readonly evm: Invoker,
  ) {}

  /** Starts delivering blocks committed from now on; returns the detach function. */
  attach(listener: BlockListener, maxBacklog: number): () => void {
    this.queues.set(listener, new ListenerQueue(listener, maxBacklog, this.logger));
    if (!this.subscribed) this.subscribe();
    return () => this.detach(listener);
  }

  onModuleDestroy(): void {
    for (const listener of [...this.queues.keys()]) this.detach(listener);
  }

  private detach(listener: BlockListener): void {
    const queue = this.queues.get(listener);
    if (!queue) return;
    queue.stopped = true;
    this.queues.delete(listener);
    if (this.queues.size === 0 && this.subscribed) {
      this.subscribed = false;
      this.bus.unsubscribe(SUBSCRIBER, NEW_BLOCK);
    }
  }

  private subscribe(): void {
    try {
      this.bus.subscribe(SUBSCRIBER, NEW_BLOCK, {
        bufferSize: BUS_BUFFER,
        onEvent: (event) => this.onNewBlock(event),
        onCancel: (reason) => this.onCancel(reason),
      });
      this.subscribed = true;
    } catch (err) {
      this.logger.error(`cannot follow new blocks: ${(err as Error).message}`);
    }
  }

  private onCancel(reason: string): void {
    this.logger.warn(`new block feed cancelled: ${reason}`);
    if (!this.subscribed) return;
    this.subscribed = false;
    if (this.bus.hasSubscription(SUBSCRIBER, NEW_BLOCK)) this.bus.unsubscribe(SUBSCRIBER, NEW_BLOCK);
    if (this.queues.size > 0) this.subscribe();
  }

  private onNewBlock(event: BusEvent): void {
    const height = (event.data as { value?: { block?: { header?: { height?: string } } } }).value?.block?.header?.height;
    if (height === undefined) return;
    const block = new BlockEvents(BigInt(height), this.evm);
    for (const [listener, queue] of this.queues) {
      if (queue.push(block)) continue;
      this.detach(listener);
      listener.onOverflow();
    }
  }
}
