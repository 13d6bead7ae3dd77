/**
 * The Helm chart, rendered by the real `helm` binary (test/support/helm.ts): `helm lint --strict`, `helm
 * template` with the default values and with values-production.yaml, `helm install --dry-run=client`.
 * The rendered manifests are parsed and checked; the rendered config.toml, app.toml and gateway.toml go
 * through the pods' own init step into a home and are loaded by the gateway's config loader. Other
 * set-ups and the refusals: helm-setups.test.ts; the config check hook: helm-config-check.test.ts.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { parse as parseToml } from 'smol-toml';
import { tableValues } from '../../src/config/config-check';
import { CONFIG_TABLES, TABLE_NAMES, tableSpec } from '../../src/config/config-tables';
import { loadConfig } from '../../src/config/load-config';
import { UPSTREAM_DEFAULTS } from '../../src/config/upstream-config';
import { declareFamilies } from '../../src/metrics/metric-families';
import { CHART, container, envOf, FILES, find, helm, ok, one, podConfig, PRODUCTION, removeHelmTmp, ROOT, template, tmp, yaml, type Manifest } from '../support/helm';

afterAll(removeHelmTmp);

/* eslint-disable @typescript-eslint/no-explicit-any */

describe('the chart', () => {
  it("has the package's version as appVersion", () => {
    const chart = yaml.loadAll(readFileSync(join(CHART, 'Chart.yaml'), 'utf8'))[0] as { appVersion: string; apiVersion: string };
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(chart.apiVersion).toBe('v2');
    expect(chart.appVersion).toBe(pkg.version);
  });

  it('passes helm lint --strict, with the default values and with values-production.yaml', () => {
    expect(ok(helm(['lint', '--strict', CHART]))).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    expect(ok(helm(['lint', '--strict', CHART, '-f', PRODUCTION]))).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });
});

describe('default values: a development deployment of the embedded devnet', () => {
  let docs: Manifest[];
  beforeAll(() => {
    docs = template();
  });

  it('renders the gateway, its services, config, home volume and disruption budget, and nothing optional', () => {
    // The Pod is `helm test`'s (a hook): it calls both interfaces and /readyz through the Services.
    // The Job and its ConfigMap are the config check's (pre-install and pre-upgrade hooks).
    expect(docs.map((d) => d.kind).sort()).toEqual(['ConfigMap', 'ConfigMap', 'Deployment', 'Job', 'PersistentVolumeClaim', 'Pod', 'PodDisruptionBudget', 'Service', 'Service', 'ServiceAccount']);
    expect(one(docs, 'Pod').metadata.annotations!['helm.sh/hook']).toBe('test');
    const deployment = one(docs, 'Deployment');
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    expect(deployment.spec.template.spec.volumes.find((v: any) => v.name === 'home')).toEqual({ name: 'home', persistentVolumeClaim: { claimName: 'rgw-rpc-gateway-home' } });
    expect(one(docs, 'PersistentVolumeClaim').spec.resources.requests.storage).toBe('1Gi');
  });

  it('exports traces only when tracing.endpoint is set, through the standard OTEL_* variables', () => {
    expect(Object.keys(envOf(container(one(docs, 'Deployment'), 'gateway'))).filter((name) => name.startsWith('OTEL_'))).toEqual([]);
    const traced = template('--set', 'tracing.endpoint=http://otel-collector.observability:4318', '--set', 'tracing.protocol=grpc', '--set-json', 'tracing.sampleRatio=0.25');
    expect(envOf(container(one(traced, 'Deployment'), 'gateway'))).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_SERVICE_NAME: 'rgw-rpc-gateway',
    });
    expect(helm(['template', 'rgw', CHART, '--set', 'tracing.protocol=zipkin']).stderr).toMatch(/\/tracing\/protocol': value must be one of/);
  });

  it('exposes the node RPC, EVM HTTP and EVM WebSocket on one Service and metrics on another', () => {
    const gateway = container(one(docs, 'Deployment'), 'gateway');
    expect(gateway.args).toEqual(['start']);
    expect(gateway.ports.map((p: any) => [p.name, p.containerPort])).toEqual([
      ['node-rpc', 26657],
      ['evm-http', 8545],
      ['evm-ws', 8546],
      ['metrics', 26660],
    ]);
    const service = one(docs, 'Service', 'rgw-rpc-gateway');
    expect(service.spec.type).toBe('ClusterIP');
    expect(service.spec.ports.map((p: any) => [p.name, p.port, p.targetPort])).toEqual([
      ['evm-http', 8545, 'evm-http'],
      ['evm-ws', 8546, 'evm-ws'],
      ['node-rpc', 26657, 'node-rpc'],
    ]);
    const metrics = one(docs, 'Service', 'rgw-rpc-gateway-metrics');
    expect(metrics.spec.ports).toEqual([{ name: 'metrics', port: 26660, targetPort: 'metrics', protocol: 'TCP' }]);
    for (const s of [service, metrics]) expect(s.spec.selector).toEqual(one(docs, 'Deployment').spec.selector.matchLabels);
  });

  it('probes /livez and /readyz on the metrics port and gives the drain its time', () => {
    const spec = one(docs, 'Deployment').spec.template.spec;
    const gateway = container(one(docs, 'Deployment'), 'gateway');
    expect(gateway.startupProbe.httpGet).toEqual({ path: '/livez', port: 'metrics' });
    expect(gateway.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'metrics' });
    expect(gateway.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    const preStop = Number(gateway.lifecycle.preStop.exec.command[1]);
    expect(gateway.lifecycle.preStop.exec.command[0]).toBe('sleep');
    // preStop, then up to 10 s of drain after SIGTERM, with room to spare.
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(preStop + 10 + 5);
    expect(gateway.resources.limits).toEqual({ cpu: '2', memory: '1Gi' });
    expect(gateway.resources.requests).toBeDefined();
  });

  it('runs non-root on a read-only root filesystem, without privilege escalation or capabilities', () => {
    const spec = one(docs, 'Deployment').spec.template.spec;
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    expect(spec.automountServiceAccountToken).toBe(false);
    for (const c of [...spec.initContainers, ...spec.containers]) {
      expect(c.securityContext).toMatchObject({ runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, privileged: false, capabilities: { drop: ['ALL'] } });
    }
    const mounts = container(one(docs, 'Deployment'), 'gateway').volumeMounts.map((m: any) => m.mountPath);
    expect(mounts).toEqual(['/home/node/.rpc-gateway', '/tmp']);
    expect(spec.volumes.find((v: any) => v.name === 'tmp').emptyDir).toBeDefined();
    expect(spec.topologySpreadConstraints.map((c: any) => c.topologyKey)).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
    for (const c of spec.topologySpreadConstraints) expect(c.labelSelector.matchLabels).toEqual(one(docs, 'Deployment').spec.selector.matchLabels);
  });

  it('writes config files the gateway loads: the devnet, listeners on 0.0.0.0, metrics on, safe defaults', () => {
    const { config } = podConfig(docs);
    expect(config.gateway.backend.kind).toBe('embedded');
    expect(config.rpc.laddr).toBe('tcp://0.0.0.0:26657');
    expect(config.jsonRpc.address).toBe('0.0.0.0:8545');
    expect(config.jsonRpc['ws-address']).toBe('0.0.0.0:8546');
    expect(config.instrumentation).toMatchObject({ prometheus: true, prometheus_listen_addr: '0.0.0.0:26660' });
    expect(config.rpc.unsafe).toBe(false);
    expect(config.rpc.cors_allowed_origins).toEqual([]);
    expect(config.jsonRpc.api).toEqual(['eth', 'net', 'web3']);
    expect(config.gateway.devnet.ephemeral).toBe(false);
  });

  it("documents every key with the gateway's own default, except the listeners the chart sets", () => {
    const { config, texts } = podConfig(docs);
    const defaults = loadConfig({ home: mkdtempSync(join(tmp, 'defaults-')), env: {} });
    const chartOwned: Record<string, Record<string, unknown>> = {
      rpc: { laddr: 'tcp://0.0.0.0:26657' },
      instrumentation: { prometheus: true, prometheus_listen_addr: '0.0.0.0:26660', max_open_connections: 10 },
      'json-rpc': { address: '0.0.0.0:8545', 'ws-address': '0.0.0.0:8546' },
      log: { format: 'json' },
    };
    for (const table of TABLE_NAMES) {
      expect([table, tableValues(config, table)]).toEqual([table, { ...tableValues(defaults, table), ...chartOwned[table] }]);
    }
    expect(config.gateway.upstream.settings).toEqual(UPSTREAM_DEFAULTS);

    // Every key of every table is written (Redis URLs excepted: they come from the Secret), and no other.
    for (const file of FILES) {
      const document = parseToml(texts[file]) as Record<string, Record<string, unknown>>;
      const tables = TABLE_NAMES.filter((name) => CONFIG_TABLES[name].file === file);
      expect(Object.keys(document).sort()).toEqual([...tables].sort());
      for (const table of tables) {
        const expected = Object.keys(tableSpec(table).keys).filter((key) => !key.endsWith('redis_url'));
        const missing = expected.filter((key) => !(key in document[table]));
        const unknown = Object.keys(document[table]).filter((key) => !(key in tableSpec(table).keys) && typeof document[table][key] !== 'object');
        if (missing.length > 0 || unknown.length > 0) {
          throw new Error(`helm/rpc-gateway/values.yaml (and values.schema.json): [${table}] of ${file} lacks ${missing.join(', ') || 'nothing'} and has unknown ${unknown.join(', ') || 'nothing'}; keep the chart's keys those of src/config/config-tables.ts`);
        }
      }
    }
    expect(Object.keys(parseToml(texts['gateway.toml']).upstream as object).sort()).toEqual(Object.keys(UPSTREAM_DEFAULTS).sort());
  });

  it('rolls the pods when the config changes (checksum annotation)', () => {
    const checksum = (d: Manifest[]) => one(d, 'Deployment').spec.template.metadata.annotations['checksum/config'];
    expect(checksum(docs)).toMatch(/^[0-9a-f]{64}$/);
    expect(checksum(template())).toBe(checksum(docs));
    expect(checksum(template('--set', 'configToml.rpc.max_body_bytes=2000000'))).not.toBe(checksum(docs));
  });

  it('installs (dry run) with NOTES that say it is a development deployment and how to reach it', () => {
    const out = ok(helm(['install', 'rgw', CHART, '--namespace', 'rpc', '--dry-run=client']));
    const notes = out.slice(out.indexOf('NOTES:'));
    expect(notes).toContain('THIS IS A DEVELOPMENT DEPLOYMENT');
    expect(notes).toContain('http://rgw-rpc-gateway.rpc.svc:26657');
    expect(notes).toContain('ws://rgw-rpc-gateway.rpc.svc:26657/websocket');
    expect(notes).toContain('http://rgw-rpc-gateway.rpc.svc:8545');
    expect(notes).toContain('ws://rgw-rpc-gateway.rpc.svc:8546');
    expect(notes).toContain('kubectl -n rpc port-forward svc/rgw-rpc-gateway 26657 8545 8546');
    expect(notes).toContain('port-forward svc/rgw-rpc-gateway-metrics 26660');
    expect(notes).not.toContain('WARNING');
  });
});

describe('values-production.yaml: upstreams, external Redis, workers, ingress, monitoring', () => {
  let docs: Manifest[];
  beforeAll(() => {
    docs = template('-f', PRODUCTION);
  });

  it('runs 3 replicas of the gateway with rolling updates, spread and a disruption budget', () => {
    const deployment = one(docs, 'Deployment', 'rgw-rpc-gateway');
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } });
    expect(deployment.spec.template.spec.volumes.find((v: any) => v.name === 'home')).toEqual({ name: 'home', emptyDir: {} });
    expect(find(docs, 'PersistentVolumeClaim')).toEqual([]);
    expect(one(docs, 'PodDisruptionBudget').spec).toEqual({ minAvailable: 2, selector: deployment.spec.selector });
    expect(deployment.spec.template.spec.topologySpreadConstraints[0]).toMatchObject({ topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' });
    expect(find(docs, 'StatefulSet')).toEqual([]);
  });

  it('serves upstream mode, with the Redis URL and the keyed upstream URL from the Secret only', () => {
    const configMap = one(docs, 'ConfigMap', 'rgw-rpc-gateway-config');
    const text = Object.values(configMap.data!).join('\n');
    expect(text).not.toMatch(/redis:\/\/|rediss:\/\/|redis_url/);
    expect(text).toContain('url = "${secret:provider-evm-url}"');
    for (const name of ['rgw-rpc-gateway', 'rgw-rpc-gateway-worker']) {
      const env = envOf((one(docs, 'Deployment', name).spec.template.spec.containers as any[])[0]);
      const fromSecret = { secretKeyRef: { name: 'rpc-gateway-secrets', key: 'redis-url' } };
      expect(env.RPCGW_CACHE_REDIS_URL).toEqual(fromSecret);
      expect(env.RPCGW_QUEUE_REDIS_URL).toEqual(fromSecret);
      expect(env.RPCGW_ACCESS_REDIS_URL).toEqual(fromSecret);
    }
    // The keyed URL reaches only the init step, as a file of the Secret.
    const spec = one(docs, 'Deployment', 'rgw-rpc-gateway').spec.template.spec;
    expect(spec.volumes.find((v: any) => v.name === 'upstream-secrets').secret).toEqual({ secretName: 'rpc-gateway-secrets', items: [{ key: 'provider-evm-url', path: 'provider-evm-url' }] });
    expect(container(one(docs, 'Deployment', 'rgw-rpc-gateway'), 'gateway').volumeMounts.map((m: any) => m.name)).not.toContain('upstream-secrets');
    expect(find(docs, 'Secret')).toEqual([]);

    const { config } = podConfig(docs, { 'provider-evm-url': 'https://evm.provider.example/v1/KEY"with\\quote' });
    expect(config.gateway.backend.kind).toBe('upstream');
    expect(config.gateway.upstream.nodes.map((u) => [u.name, u.url])).toEqual([
      ['node-0', 'http://cometbft-0.cometbft.chain.svc:26657'],
      ['node-1', 'http://cometbft-1.cometbft.chain.svc:26657'],
    ]);
    expect(config.gateway.upstream.evm.map((u) => [u.name, u.url, u.ws])).toEqual([
      ['evm-0', 'http://cometbft-0.cometbft.chain.svc:8545', 'ws://cometbft-0.cometbft.chain.svc:8546'],
      ['evm-1', 'http://cometbft-1.cometbft.chain.svc:8545', 'ws://cometbft-1.cometbft.chain.svc:8546'],
      ['provider', 'https://evm.provider.example/v1/KEY"with\\quote', ''],
    ]);
    expect(config.jsonRpc.api).toEqual(['eth', 'net', 'web3']);
    expect(config.rpc.unsafe).toBe(false);
    expect(config.gateway.access.trusted_proxies).toEqual(['10.0.0.0/8']);
    expect(config.gateway.access.rate.map((r) => [r.name, r.limit, r.window])).toEqual([
      ['ip', 100, 1000],
      ['logs', 5, 1000],
      ['broadcasts', 20, 60_000],
    ]);
    expect(config.gateway.limits.max_ws_connections_per_ip).toBe(20);
    expect(config.gateway.limits.max_unfinished_bytes).toBe(67_108_864);
    expect(config.gateway.queue.workers).toBe(false);
  });

  it('fails the init step, naming the key, when the Secret lacks an upstream URL', () => {
    expect(() => podConfig(docs)).toThrow(/\$\{secret:provider-evm-url\}: the Secret has no key provider-evm-url/);
  });

  it('runs queue workers with `rpc-gateway worker` and the same config and hardening', () => {
    const worker = one(docs, 'Deployment', 'rgw-rpc-gateway-worker');
    expect(worker.spec.replicas).toBe(2);
    const c = container(worker, 'worker');
    expect(c.args).toEqual(['worker']);
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(worker.spec.template.metadata.annotations['checksum/config']).toBe(one(docs, 'Deployment', 'rgw-rpc-gateway').spec.template.metadata.annotations['checksum/config']);
    expect(worker.spec.selector.matchLabels['app.kubernetes.io/component']).toBe('worker');
    // Its metrics listener: probes, and a Service the ServiceMonitor scrapes.
    expect(c.ports).toEqual([{ name: 'metrics', containerPort: 26660, protocol: 'TCP' }]);
    expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'metrics' });
    const metrics = one(docs, 'Service', 'rgw-rpc-gateway-worker-metrics');
    expect(metrics.spec.selector).toEqual(worker.spec.selector.matchLabels);
    expect(metrics.metadata.labels!['app.kubernetes.io/component']).toBe('metrics');
    // The workers deliver; the gateway pods only queue (the worker command always delivers).
    expect(parseToml(one(docs, 'ConfigMap', 'rgw-rpc-gateway-config').data!['gateway.toml'])).toMatchObject({ queue: { workers: false } });
  });

  it('routes one host per interface through an ingress that keeps WebSockets open', () => {
    const ingress = one(docs, 'Ingress');
    expect(ingress.spec.ingressClassName).toBe('nginx');
    expect(ingress.metadata.annotations).toMatchObject({ 'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600', 'nginx.ingress.kubernetes.io/proxy-send-timeout': '3600' });
    const routes = (ingress.spec.rules as any[]).map((r) => [r.host, r.http.paths[0].backend.service.name, r.http.paths[0].backend.service.port.name]);
    expect(routes.sort()).toEqual([
      ['evm-ws.example.com', 'rgw-rpc-gateway', 'evm-ws'],
      ['evm.example.com', 'rgw-rpc-gateway', 'evm-http'],
      ['rpc.example.com', 'rgw-rpc-gateway', 'node-rpc'],
    ]);
    expect(ingress.spec.tls[0].hosts).toHaveLength(3);
  });

  it('scrapes the metrics Service with a ServiceMonitor', () => {
    const monitor = one(docs, 'ServiceMonitor');
    const metrics = one(docs, 'Service', 'rgw-rpc-gateway-metrics');
    expect(monitor.metadata.labels!.release).toBe('prometheus');
    expect(monitor.spec.namespaceSelector).toEqual({ matchNames: ['rpc'] });
    for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels as Record<string, string>)) expect(metrics.metadata.labels![key]).toBe(value);
    expect(one(docs, 'Service', 'rgw-rpc-gateway').metadata.labels!['app.kubernetes.io/component']).not.toBe(monitor.spec.selector.matchLabels['app.kubernetes.io/component']);
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics' })]);
  });

  it("alerts on metric families and labels the gateway really exports", () => {
    const rule = one(docs, 'PrometheusRule');
    const rules = rule.spec.groups[0].rules as { alert: string; expr: string }[];
    expect(rules.map((r) => r.alert)).toEqual(['RpcGatewayNoHealthyUpstream', 'RpcGatewayUpstreamLagging', 'RpcGatewayHighErrorRatio', 'RpcGatewayQueueFailedJobs', 'RpcGatewayTargetDown']);
    const registry = new Registry();
    declareFamilies(registry, 'rpcgw_');
    const families = new Map(registry.getMetricsAsArray().map((m) => [m.name, new Set<string>((m as unknown as { labelNames: string[] }).labelNames)]));
    for (const { alert, expr } of rules) {
      for (const [selector, name, matchers] of expr.matchAll(/\b(rpcgw_\w+)\{([^}]*)\}/g)) {
        expect([alert, name, families.has(name)]).toEqual([alert, name, true]);
        for (const [, label] of matchers.matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)) {
          if (label === 'namespace' || label === 'job') continue;
          expect([alert, selector, label, families.get(name)!.has(label)]).toEqual([alert, selector, label, true]);
        }
      }
      for (const [, by] of expr.matchAll(/by \(([^)]*)\)/g)) {
        for (const label of by.split(',').map((l) => l.trim())) {
          if (['namespace', 'pod'].includes(label)) continue;
          expect([alert, label, [...families.values()].some((labels) => labels.has(label))]).toEqual([alert, label, true]);
        }
      }
    }
    const expr = (alert: string) => rules.find((r) => r.alert === alert)!.expr;
    const sel = 'namespace="rpc", job=~"rgw-rpc-gateway-metrics|rgw-rpc-gateway-worker-metrics"';
    expect(expr('RpcGatewayNoHealthyUpstream')).toContain(`rpcgw_upstream_up{${sel}}) == 0`);
    expect(expr('RpcGatewayUpstreamLagging')).toMatch(/rpcgw_upstream_lag_blocks\{.*\}\) > 5$/);
    expect(expr('RpcGatewayHighErrorRatio')).toContain(`rpcgw_requests_total{${sel}, outcome!~"ok|-32700|-32600|-32601|-32602|3"}`);
    expect(expr('RpcGatewayQueueFailedJobs')).toContain(`rpcgw_queue_jobs{${sel}, state="failed"}`);
    expect(expr('RpcGatewayTargetDown')).toBe(`up{${sel}} == 0`);
  });

  it('ships the Grafana dashboard as a ConfigMap for the sidecar', () => {
    const dashboard = one(docs, 'ConfigMap', 'rgw-rpc-gateway-dashboard');
    expect(dashboard.metadata.labels!.grafana_dashboard).toBe('1');
    expect(dashboard.data!['rpc-gateway.json']).toBe(readFileSync(join(ROOT, 'helm', 'dashboards', 'rpc-gateway.json'), 'utf8').replace(/\n$/, ''));
    expect(JSON.parse(dashboard.data!['rpc-gateway.json']).uid).toBe('rpc-gateway');
  });

  it('installs (dry run) with NOTES for the ingress hosts and no development warning', () => {
    const out = ok(helm(['install', 'rgw', CHART, '--namespace', 'rpc', '--dry-run=client', '-f', PRODUCTION]));
    const notes = out.slice(out.indexOf('NOTES:'));
    expect(notes).not.toContain('DEVELOPMENT');
    expect(notes).toContain('Upstream mode: 2 node RPC upstream(s), 3 EVM upstream(s); 3 replica(s).');
    expect(notes).toContain('https://rpc.example.com/   (WebSocket: wss://rpc.example.com/websocket)');
    expect(notes).toContain('https://evm.example.com/');
    expect(notes).toContain('wss://evm-ws.example.com/');
    expect(notes).toContain('ServiceMonitor rgw-rpc-gateway');
    expect(notes).not.toContain('Access is open');
    const open = ok(helm(['install', 'rgw', CHART, '--namespace', 'rpc', '--dry-run=client', '-f', PRODUCTION, '--set', 'gatewayToml.access.rate=null']));
    expect(open).toContain('Access is open: no API key is needed and no call is rate limited');
  });
});

