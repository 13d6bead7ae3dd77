import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { namedParams } from '../../../src/backends/params-form';
import { uncachedDevnetMethods } from '../../support/devnet-methods';
import { HandlerTable } from '../../../src/backends/embedded/handler-table';
import { num_unconfirmed_txs } from '../../../src/node-rpc/info/info.methods';
import { Invoker } from '../../../src/rpc/invoker';
import { EventBus, type BusEvent } from '../../../src/events';
import { DEVNET_METRICS_SUBSCRIBER, DevnetMetrics, unixSeconds } from '../../../src/metrics/devnet-metrics';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { Exposition } from './exposition';

function newBlock(height: number, time: string, txs: string[] = []): BusEvent {
  return {
    type: 'NewBlock',
    data: { type: 'tendermint/event/NewBlock', value: { block: { header: { height: String(height), time }, data: { txs } } } },
    events: { 'tm.event': ['NewBlock'] },
  };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('DevnetMetrics', () => {
  it('follows NewBlock events on the bus and asks the backend for the mempool at scrape time', async () => {
    const metrics = new MetricsService({ instrumentation: { prometheus: true, namespace: 'rpcgw' } } as GatewayConfigService);
    const bus = new EventBus();
    let mempool = { total: '0', total_bytes: '0' };
    const node = new Invoker(uncachedDevnetMethods(new HandlerTable().on(num_unconfirmed_txs, async () => ({ n_txs: mempool.total, ...mempool, txs: null })), namedParams), {
      config: {} as GatewayConfigService,
    });
    const devnet = new DevnetMetrics(metrics.families.devnet, bus, node);
    devnet.start();
    expect(bus.hasSubscription(DEVNET_METRICS_SUBSCRIBER, "tm.event = 'NewBlock'")).toBe(true);

    bus.publish(newBlock(1, '2024-05-01T10:00:00.000000001Z'));
    bus.publish(newBlock(2, '2024-05-01T10:00:01.5Z', ['YT0x', 'Yj0y']));
    bus.publish({ type: 'Tx', data: {}, events: { 'tm.event': ['Tx'] } });
    bus.publish(newBlock(3, '2024-05-01T10:00:02.25Z', ['Yz0z']));
    await settle();
    mempool = { total: '4', total_bytes: '120' };

    const m = new Exposition(await metrics.scrape());
    expect(m.value('rpcgw_devnet_block_height')).toBe(3);
    expect(m.value('rpcgw_devnet_last_block_timestamp_seconds')).toBeCloseTo(Date.parse('2024-05-01T10:00:02.25Z') / 1000, 6);
    expect(m.value('rpcgw_devnet_block_interval_seconds_count')).toBe(2);
    expect(m.value('rpcgw_devnet_block_interval_seconds_sum')).toBeCloseTo(2.25, 6);
    expect(m.value('rpcgw_devnet_block_interval_seconds_bucket', { le: 1 })).toBe(1);
    expect(m.value('rpcgw_devnet_block_interval_seconds_bucket', { le: 2 })).toBe(2);
    expect(m.value('rpcgw_devnet_txs_total')).toBe(3);
    expect(m.value('rpcgw_devnet_mempool_txs')).toBe(4);
    expect(m.value('rpcgw_devnet_mempool_bytes')).toBe(120);

    devnet.stop();
    expect(bus.numClients()).toBe(0);
  });

  it('a gap in heights is not an interval', async () => {
    const metrics = new MetricsService({ instrumentation: { prometheus: false, namespace: 'rpcgw' } } as GatewayConfigService);
    const devnet = new DevnetMetrics(metrics.families.devnet, new EventBus(), {} as Invoker);
    devnet.onNewBlock(newBlock(5, '2024-05-01T10:00:00Z'));
    devnet.onNewBlock(newBlock(9, '2024-05-01T10:00:04Z'));
    devnet.onNewBlock({ type: 'NewBlock', data: { value: {} }, events: {} });
    const m = new Exposition(await metrics.scrape());
    expect(m.value('rpcgw_devnet_block_height')).toBe(9);
    expect(m.value('rpcgw_devnet_block_interval_seconds_count')).toBe(0);
  });

  it('reads RFC 3339 times with up to nanoseconds', () => {
    expect(unixSeconds('1970-01-01T00:00:01Z')).toBe(1);
    expect(unixSeconds('1970-01-01T00:00:01.5Z')).toBe(1.5);
    expect(unixSeconds('1970-01-01T00:00:01.000000250Z')).toBeCloseTo(1.00000025, 9);
    expect(unixSeconds('yesterday')).toBeUndefined();
  });
});
