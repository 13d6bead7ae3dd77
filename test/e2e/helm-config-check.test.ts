/**
 * The chart's `rpc-gateway config check` hook, rendered by the real `helm` binary (test/support/helm.ts): a
 * pre-install / pre-upgrade Job whose pod gets the release's config files as the gateway's pods get them
 * and runs the check on them, so a bad config fails the install or upgrade.
 */
import { ConfigError } from '../../src/config/config-error';
import { parseCli } from '../../src/config/cli';
import { formatConfigCheck } from '../../src/config/config-check';
import { resolveConfig } from '../../src/config/load-config';
import { container, envOf, find, helm, ok, one, podHome, PRODUCTION, removeHelmTmp, template, CHART, type Manifest } from '../support/helm';

afterAll(removeHelmTmp);

/* eslint-disable @typescript-eslint/no-explicit-any */

const NAME = 'rgw-rpc-gateway-config-check';
const HOOK = { 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded' };
const jobSpec = (docs: Manifest[]): any => one(docs, 'Job', NAME).spec.template.spec;

/** What the Job's container runs, on its pod's home: the check's report, or the one-line ConfigError. */
function runCheck(docs: Manifest[], secrets: Record<string, string> = {}): string {
  const spec = jobSpec(docs);
  const { home } = podHome(one(docs, 'ConfigMap', NAME), spec, secrets);
  const invocation = parseCli(['node', 'rpc-gateway', ...container(one(docs, 'Job', NAME), 'config-check').args], {});
  expect(invocation).toEqual({ command: 'config-check', home: '/home/node/.rpc-gateway', flags: {} });
  try {
    return formatConfigCheck(resolveConfig({ home, env: {}, flags: invocation.flags }));
  } catch (error) {
    if (error instanceof ConfigError) return `error: ${error.message}`;
    throw error;
  }
}

describe('the config check hook, default values', () => {
  let docs: Manifest[];
  beforeAll(() => {
    docs = template();
  });

  it('is a Job run before install and upgrade, after its copy of the ConfigMap', () => {
    const job = one(docs, 'Job', NAME);
    const configMap = one(docs, 'ConfigMap', NAME);
    expect(job.metadata.annotations).toEqual({ ...HOOK, 'helm.sh/hook-weight': '0' });
    expect(configMap.metadata.annotations).toEqual({ ...HOOK, 'helm.sh/hook-weight': '-10' });
    expect(job.spec.backoffLimit).toBe(0);
    expect(job.spec.activeDeadlineSeconds).toBe(300);
    expect(jobSpec(docs).restartPolicy).toBe('Never');
  });

  it("runs `config check --home` on the home where the pods' own init step writes the same config files", () => {
    expect(container(one(docs, 'Job', NAME), 'config-check').args).toEqual(['config', 'check', '--home', '/home/node/.rpc-gateway']);
    expect(one(docs, 'ConfigMap', NAME).data).toEqual(one(docs, 'ConfigMap', 'rgw-rpc-gateway-config').data);
    const spec = jobSpec(docs);
    const pod = one(docs, 'Deployment', 'rgw-rpc-gateway').spec.template.spec;
    expect(spec.initContainers).toEqual(pod.initContainers);
    expect(spec.volumes.find((v: any) => v.name === 'config')).toEqual({ name: 'config', configMap: { name: NAME } });
    expect(spec.volumes.find((v: any) => v.name === 'home')).toEqual({ name: 'home', emptyDir: {} });
    expect(container(one(docs, 'Job', NAME), 'config-check').volumeMounts).toEqual(container(one(docs, 'Deployment', 'rgw-rpc-gateway'), 'gateway').volumeMounts);
    expect(envOf(container(one(docs, 'Job', NAME), 'config-check'))).toEqual(envOf(container(one(docs, 'Deployment', 'rgw-rpc-gateway'), 'gateway')));
    expect(container(one(docs, 'Job', NAME), 'config-check').securityContext).toEqual(container(one(docs, 'Deployment', 'rgw-rpc-gateway'), 'gateway').securityContext);
  });

  it('passes on the default values, and prints the configuration', () => {
    const report = runCheck(docs);
    expect(report).toMatch(/^# rpc-gateway configuration of /);
    expect(report).toContain('[backend]  # gateway.toml');
  });

  it('is not rendered with configCheck.enabled = false', () => {
    const off = template('--set', 'configCheck.enabled=false');
    expect(find(off, 'Job')).toEqual([]);
    expect(find(off, 'ConfigMap').map((d) => d.metadata.name)).toEqual(['rgw-rpc-gateway-config']);
  });

  it('installs (dry run) with the hook', () => {
    const out = ok(helm(['install', 'rgw', CHART, '--namespace', 'rpc', '--dry-run=client']));
    expect(out.slice(0, out.indexOf('MANIFEST:'))).toContain(`name: ${NAME}`);
  });
});

describe('the config check hook, production values', () => {
  it("reads the upstream URLs from the release's Secret, and fails on a bad one", () => {
    const docs = template('-f', PRODUCTION);
    const spec = jobSpec(docs);
    expect(spec.volumes.find((v: any) => v.name === 'upstream-secrets').secret.secretName).toBe('rpc-gateway-secrets');
    expect(envOf(container(one(docs, 'Job', NAME), 'config-check')).RPCGW_CACHE_REDIS_URL).toEqual({ secretKeyRef: { name: 'rpc-gateway-secrets', key: 'redis-url' } });
    expect(runCheck(docs, { 'provider-evm-url': 'https://evm.provider.example/v1/KEY' })).toContain('[[upstream.evm]] "https://evm.provider.example/v1/KEY"');
    expect(runCheck(docs, { 'provider-evm-url': 'ftp://evm.provider.example' })).toMatch(/^error: config\/gateway\.toml: \[\[upstream\.evm\]\] #\d+ url = "ftp:\/\/evm\.provider\.example": expected an http:\/\/ or https:\/\/ URL$/);
  });

  it("uses its own copy of the chart's Secret, which does not exist yet before install", () => {
    const docs = template('-f', PRODUCTION, '--set', 'secret.existingSecret=', '--set', 'redis.external.url=rediss://u:p@redis:6379/0', '--set', 'secret.data.provider-evm-url=https://p.example/KEY');
    const copy = one(docs, 'Secret', NAME);
    expect(copy.metadata.annotations).toEqual({ ...HOOK, 'helm.sh/hook-weight': '-10' });
    expect(copy.data).toEqual(one(docs, 'Secret', 'rgw-rpc-gateway-secret').data);
    const spec = jobSpec(docs);
    expect(spec.volumes.find((v: any) => v.name === 'upstream-secrets').secret.secretName).toBe(NAME);
    expect(envOf(container(one(docs, 'Job', NAME), 'config-check')).RPCGW_CACHE_REDIS_URL).toEqual({ secretKeyRef: { name: NAME, key: 'redis-url' } });
  });
});
