/**
 * The Helm chart's other set-ups (its own Secret, API keys, Redis, autoscaling, plugins) and the schema's
 * and the templates' refusals, rendered by the real `helm` binary (test/support/helm.ts).
 */
import { parse as parseToml } from 'smol-toml';
import { CHART, container, envOf, find, helm, ok, one, podConfig, PRODUCTION, refusedRender, removeHelmTmp, template, type Manifest } from '../support/helm';

afterAll(removeHelmTmp);

/* eslint-disable @typescript-eslint/no-explicit-any */

describe('other set-ups', () => {
  it('renders its own Secret from values, and rolls the pods when it changes', () => {
    const args = ['-f', PRODUCTION, '--set', 'secret.existingSecret=', '--set', 'redis.external.url=rediss://u:p@redis:6379/0', '--set', 'secret.data.provider-evm-url=https://p.example/KEY'];
    const docs = template(...args);
    const secret = one(docs, 'Secret', 'rgw-rpc-gateway-secret');
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
    const secret = one(docs, 'Secret', 'rgw-rpc-gateway-secret');
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
