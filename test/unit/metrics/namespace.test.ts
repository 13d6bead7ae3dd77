import { CONFIG_TABLES } from '../../../src/config/config-tables';
import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { Exposition } from './exposition';

async function familyNames(namespace: string): Promise<string[]> {
  const metrics = new MetricsService({ instrumentation: { ...CONFIG_TABLES.instrumentation.defaults, prometheus: true, namespace } } as GatewayConfigService);
  return [...new Exposition(await metrics.scrape()).types.keys()];
}

describe('[instrumentation] namespace', () => {
  it("prefixes every family of the gateway's own with <namespace>_; process and Node.js families keep their standard names", async () => {
    const names = await familyNames('chain_a');
    expect(names.length).toBeGreaterThan(40);
    for (const name of names) expect(name).toMatch(/^(chain_a_|process_|nodejs_)/);
    expect(names).toEqual(
      expect.arrayContaining(['chain_a_requests_total', 'chain_a_upstream_up', 'chain_a_cache_hits_total', 'process_cpu_user_seconds_total', 'nodejs_heap_size_used_bytes']),
    );
    expect(names.filter((n) => /^chain_a_(process|nodejs)_/.test(n))).toEqual([]);
  });

  it('is rpcgw by default: the names the README and the Grafana dashboard use', async () => {
    expect(CONFIG_TABLES.instrumentation.defaults.namespace).toBe('rpcgw');
    const names = await familyNames(CONFIG_TABLES.instrumentation.defaults.namespace);
    expect(names).toEqual(expect.arrayContaining(['rpcgw_requests_total', 'rpcgw_upstream_request_duration_seconds', 'nodejs_heap_size_used_bytes']));
  });
});
