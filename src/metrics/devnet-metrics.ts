import type { EventBus, BusEvent } from '../events';
import { parseQuery } from '../events/query';
import { num_unconfirmed_txs } from '../node-rpc/info/info.methods';
import type { Invoker } from '../rpc/invoker';
import type { MetricFamilies } from './metric-families';

/** The bus subscriber name of the devnet gauges (it counts as one subscription client, as CometBFT's indexer does). */
export const DEVNET_METRICS_SUBSCRIBER = 'rpcgw-metrics';

const NEW_BLOCK = parseQuery("tm.event = 'NewBlock'");

interface NewBlockHeader {
  readonly height?: string;
  readonly time?: string;
}

/**
 * The embedded devnet's gauges, without reaching into the devnet: height, header time, block interval
 * and included txs from the NewBlock events on the bus; the mempool from `num_unconfirmed_txs`,
 * asked at scrape time.
 */
export class DevnetMetrics {
  private lastHeight = 0;
  private lastTime: number | undefined;
  private stopped = true;
  private releaseSamplers: Array<() => void> = [];

  constructor(
    private readonly families: MetricFamilies['devnet'],
    private readonly bus: EventBus,
    private readonly node: Invoker,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.subscribe();
    this.releaseSamplers = [
      this.families.mempoolTxs.sample(async (gauge) => gauge.set(Number((await this.node.invoke(num_unconfirmed_txs, {})).total))),
      this.families.mempoolBytes.sample(async (gauge) => gauge.set(Number((await this.node.invoke(num_unconfirmed_txs, {})).total_bytes))),
    ];
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const release of this.releaseSamplers.splice(0)) release();
    if (this.bus.hasSubscription(DEVNET_METRICS_SUBSCRIBER, NEW_BLOCK)) this.bus.unsubscribe(DEVNET_METRICS_SUBSCRIBER, NEW_BLOCK);
  }

  /** Records one NewBlock event's block. */
  onNewBlock(event: BusEvent): void {
    const block = (event.data as { value?: { block?: { header?: NewBlockHeader; data?: { txs?: unknown[] | null } } } }).value?.block;
    const height = Number(block?.header?.height);
    if (!Number.isSafeInteger(height) || height <= 0) return;
    const time = block?.header?.time === undefined ? undefined : unixSeconds(block.header.time);
    this.families.height.set(height);
    if (time !== undefined) {
      this.families.lastBlockTime.set(time);
      if (this.lastTime !== undefined && height === this.lastHeight + 1 && time >= this.lastTime) this.families.blockInterval.observe(time - this.lastTime);
    }
    const txs = block?.data?.txs?.length ?? 0;
    if (txs > 0) this.families.txs.inc(txs);
    this.lastHeight = height;
    this.lastTime = time;
  }

  private subscribe(): void {
    this.bus.subscribe(DEVNET_METRICS_SUBSCRIBER, NEW_BLOCK, {
      bufferSize: 1000,
      onEvent: (event) => this.onNewBlock(event),
      // Only an overflowing buffer cancels it; keep counting from the next block.
      onCancel: () => {
        if (this.stopped) return;
        if (this.bus.hasSubscription(DEVNET_METRICS_SUBSCRIBER, NEW_BLOCK)) this.bus.unsubscribe(DEVNET_METRICS_SUBSCRIBER, NEW_BLOCK);
        this.subscribe();
      },
    });
  }
}

/** RFC 3339 with up to nanoseconds (`2024-01-02T03:04:05.123456789Z`) to Unix seconds. */
export function unixSeconds(time: string): number | undefined {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(time);
  if (!match) return undefined;
  const whole = Date.parse(`${match[1]}Z`);
  if (Number.isNaN(whole)) return undefined;
  return whole / 1000 + (match[2] === undefined ? 0 : Number(`0.${match[2]}`));
}
