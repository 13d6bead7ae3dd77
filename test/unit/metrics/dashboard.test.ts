import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { Exposition } from './exposition';

const DASHBOARDS = join(__dirname, '../../../helm/dashboards');

/** Every panel expression of the Grafana dashboards names only series the gateway exports. */
describe('helm/dashboards', () => {
  const files = readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json'));

  it('exist and parse as Grafana dashboards', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const dashboard = JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8'));
      expect(dashboard.uid).toBeTruthy();
      expect(Array.isArray(dashboard.panels)).toBe(true);
      const ids = dashboard.panels.map((p: { id: number }) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('query only metric names the registry declares', async () => {
    const exported = new Exposition(await new MetricsService({ instrumentation: { prometheus: true, namespace: 'rpcgw' } } as GatewayConfigService).scrape());
    const known = new Set<string>();
    for (const [name, type] of exported.types) {
      known.add(name);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) known.add(name + suffix);
    }
    for (const file of files) {
      const text = readFileSync(join(DASHBOARDS, file), 'utf8');
      const used = new Set([...text.matchAll(/\b(rpcgw_[a-z0-9_]+)/g)].map((m) => m[1]));
      expect(used.size).toBeGreaterThan(20);
      for (const name of used) expect([file, name, known.has(name)]).toEqual([file, name, true]);
    }
  });
});
