import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '../../support/gateway';
import { Exposition } from './exposition';

const DASHBOARDS = join(__dirname, '../../../helm/dashboards');

/** PromQL words that are not metric names: aggregations and functions are told apart by the `(` after them. */
const PROMQL_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression (or a Grafana `label_values(metric, label)` query) reads:
 * string literals, label matchers, ranges, grouping clauses and function names taken out, what is
 * left are the selectors' names.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/(label_values\(\s*[a-zA-Z_:][\w:]*)\s*,[^)]*\)/g, '$1)');
  const names: string[] = [];
  for (const match of bare.matchAll(/(?<![\w$.])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    if (match[2] !== undefined || PROMQL_KEYWORDS.has(match[1].toLowerCase())) continue;
    names.push(match[1]);
  }
  return names;
}

interface Dashboard {
  uid: string;
  panels: Array<{ id: number; targets?: Array<{ expr?: string }> }>;
  templating?: { list: Array<{ name: string; definition?: string; query?: unknown; allValue?: string }> };
}

/** Every query string of a dashboard: each panel target's expression and each templating query. */
function queries(dashboard: Dashboard): string[] {
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ''));
  for (const variable of dashboard.templating?.list ?? []) {
    const query = typeof variable.query === 'object' && variable.query !== null ? (variable.query as { query?: string }).query : undefined;
    if (variable.definition?.startsWith('label_values(')) exprs.push(variable.definition);
    if (query?.startsWith('label_values(')) exprs.push(query);
  }
  return exprs.filter((e) => e !== '');
}

describe('metricNames', () => {
  it('finds the selectors of an expression and nothing else', () => {
    expect(metricNames('sum by (interface, method) (rate(rpcgw_requests_total{instance=~"$instance",method!="x"}[$__rate_interval]))')).toEqual([
      'rpcgw_requests_total',
    ]);
    expect(metricNames('histogram_quantile(0.99, sum by (le) (rate(nodejs_gc_duration_seconds_bucket{instance=~"$instance"}[5m])))')).toEqual([
      'nodejs_gc_duration_seconds_bucket',
    ]);
    expect(metricNames('time() - max(rpcgw_devnet_last_block_timestamp_seconds) / on (instance) group_left process_start_time_seconds')).toEqual([
      'rpcgw_devnet_last_block_timestamp_seconds',
      'process_start_time_seconds',
    ]);
    expect(metricNames('label_values(rpcgw_requests_total, instance)')).toEqual(['rpcgw_requests_total']);
  });
});

/** Every metric name the Grafana dashboards query is in a scrape of a running gateway. */
describe('helm/dashboards', () => {
  const files = readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json'));
  const dashboards = files.map((file) => [file, JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')) as Dashboard] as const);
  let gw: TestGateway;
  let scraped: Exposition;

  beforeAll(async () => {
    gw = await startTestGateway({
      'devnet.ephemeral': 'true',
      'json-rpc.enable': 'true',
      'json-rpc.address': '127.0.0.1:0',
      'json-rpc.ws-address': '127.0.0.1:0',
      'instrumentation.prometheus': 'true',
      'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
    });
    const res = await fetch(`${gw.metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    scraped = new Exposition(await res.text());
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('exist and parse as Grafana dashboards', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const [, dashboard] of dashboards) {
      expect(dashboard.uid).toBeTruthy();
      expect(Array.isArray(dashboard.panels)).toBe(true);
      const ids = dashboard.panels.map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('query only metric names that a scrape of the gateway holds', () => {
    const known = new Set<string>();
    for (const [name, type] of scraped.types) {
      known.add(name);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) known.add(name + suffix);
      if (type === 'summary') for (const suffix of ['_sum', '_count']) known.add(name + suffix);
    }
    for (const [file, dashboard] of dashboards) {
      const used = new Set(queries(dashboard).flatMap(metricNames));
      expect(used.size).toBeGreaterThan(20);
      for (const name of used) expect([file, name, known.has(name)]).toEqual([file, name, true]);
    }
  });

  it('read the process and Node.js runtime under their standard names, from the gateway instances only', () => {
    for (const [, dashboard] of dashboards) {
      const exprs = queries(dashboard);
      const used = new Set(exprs.flatMap(metricNames));
      for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds']) {
        expect([name, used.has(name)]).toEqual([name, true]);
      }
      expect([...used].filter((n) => /^rpcgw_(process|nodejs)_/.test(n))).toEqual([]);
      // Other services' process_* series share these names: each such query is held to the
      // instances that export the gateway's own families, and "All" expands to that list, never `.*`.
      for (const expr of exprs.filter((e) => metricNames(e).some((n) => /^(process|nodejs)_/.test(n)))) {
        expect(expr).toContain('instance=~"$instance"');
      }
      const instance = dashboard.templating?.list.find((v) => v.name === 'instance');
      expect(instance?.definition).toMatch(/^label_values\(rpcgw_/);
      expect(instance?.allValue).toBeUndefined();
    }
  });
});
