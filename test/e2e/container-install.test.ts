/**
 * The container image's recipe, proved without Docker: the Dockerfile is read and its steps are done in
 * temp folders standing for its stages (COPY with .dockerignore applied, RUN, ENV, ENTRYPOINT + CMD).
 * The build stage compiles the sources and the shipped plugins (`npm run build`), with the dev
 * dependencies its `npm ci` would install taken from this checkout's node_modules (the same lockfile).
 * The runtime stage really runs `npm ci --omit=dev`, gets dist/ and plugins/ from the build stage, and
 * the gateway is started as the image starts it, with its listen addresses moved from 0.0.0.0 to
 * 127.0.0.1 and ephemeral ports. Both interfaces must answer without a single devDependency installed,
 * and a plugin mounted outside the package (as the chart mounts one) must load.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, posix, relative } from 'node:path';
import { untilLogged } from '../support/gateway-process';

const ROOT = join(__dirname, '..', '..');

interface Instruction {
  readonly op: string;
  /** `--from=build`, `--mount=…`, … */
  readonly flags: Record<string, string>;
  readonly args: string;
}

interface Stage {
  readonly name: string;
  readonly instructions: Instruction[];
}

/** The Dockerfile's stages and their instructions (continuations joined, comments dropped). */
function parseDockerfile(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, rest] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (!op) throw new Error(`Dockerfile: cannot read ${line}`);
    const flags: Record<string, string> = {};
    let args = rest;
    for (let m = /^--([\w-]+)=(\S+)\s+/.exec(args); m; m = /^--([\w-]+)=(\S+)\s+/.exec(args)) {
      flags[m[1]] = m[2];
      args = args.slice(m[0].length);
    }
    const instruction = { op: op.toUpperCase(), flags, args: args.replace(/\s+/g, ' ') };
    if (instruction.op === 'FROM') stages.push({ name: / AS (\S+)$/i.exec(args)?.[1] ?? String(stages.length), instructions: [] });
    else if (instruction.op !== 'ARG') stages.at(-1)!.instructions.push(instruction);
  }
  return stages;
}

/** `.dockerignore` as Docker reads it: paths from the context root, `*` within a name, `**` across folders. */
function dockerignore(): (rel: string) => boolean {
  const patterns = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((pattern) => {
      const source = pattern
        .replace(/^\/+|\/+$/g, '')
        .split(/(\*\*\/|\*\*|\*|\?)/)
        .map((part) => ({ '**/': '(.*/)?', '**': '.*', '*': '[^/]*', '?': '[^/]' })[part] ?? part.replace(/[.+^${}()|[\]\\]/g, '\\$&'))
        .join('');
      return new RegExp(`^${source}$`);
    });
  return (rel) => {
    const parts = rel.split('/');
    return parts.some((_, i) => patterns.some((re) => re.test(parts.slice(0, i + 1).join('/'))));
  };
}

/** COPY <src>… <dest> from `from` into the stage folder `dir` (dest relative to WORKDIR /app). */
function copy(args: string, from: string, dir: string, workdir: string, ignored?: (rel: string) => boolean): void {
  const parts = args.split(' ');
  const dest = parts.pop()!;
  for (const src of parts) {
    const source = join(from, posix.isAbsolute(src) ? posix.relative(workdir, src) : src);
    const target = join(dir, posix.isAbsolute(dest) ? posix.relative(workdir, dest) : dest, dest.endsWith('/') ? posix.basename(src) : '');
    cpSync(source, target, {
      recursive: true,
      filter: (path) => !ignored?.(relative(from, path).split('\\').join('/')),
    });
  }
}

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): void {
  const run = spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8', timeout: 150_000 });
  if (run.status !== 0) throw new Error(`${command} (in ${cwd}) failed with ${run.status}: ${run.stderr}${run.stdout}`);
}

/** ENV k=v …, with /app standing for `dir` and $VAR taken from `env`. */
function applyEnv(args: string, dir: string, workdir: string, env: Record<string, string>): void {
  for (const [, key, value] of args.matchAll(/(\w+)=(\S+)/g)) {
    env[key] = value.split(workdir).join(dir).replace(/\$(\w+)/g, (_, name: string) => env[name] ?? '');
  }
}

interface Started {
  readonly child: ChildProcess;
  readonly nodeUrl: string;
  readonly evmUrl: string;
  readonly metricsUrl: string;
}

/** Waits for the three "listening" log lines of a gateway process. */
function listening(child: ChildProcess, timeoutMs: number): Promise<Started> {
  const urls: Record<string, string> = {};
  return untilLogged(child, timeoutMs, (msg) => {
    const node = /^node RPC listening on (\S+?),? /.exec(`${msg} `);
    const evm = /^EVM JSON-RPC listening on (\S+) and/.exec(msg);
    const metrics = /^metrics, \/livez and \/readyz on (\S+)/.exec(msg);
    if (node) urls.node = node[1];
    if (evm) urls.evm = evm[1];
    if (metrics) urls.metrics = metrics[1];
    return urls.node && urls.evm && urls.metrics ? { child, nodeUrl: urls.node, evmUrl: urls.evm, metricsUrl: urls.metrics } : undefined;
  });
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

const PLUGIN = `const { definePlugin, defineMethod, optional, evmCodecs, NEVER, PLUGIN_API_VERSION } = require('rpc-gateway/plugin-api');
module.exports = definePlugin({
  name: 'hello', version: '0.1.0', apiVersion: PLUGIN_API_VERSION, interface: 'evm', namespaces: ['hello'],
  methods: () => [defineMethod({ name: 'hello_greet', group: 'hello', params: [optional('name', evmCodecs.string)], cache: () => NEVER, handler: (a) => 'hello, ' + (a.name ?? 'world') })],
});
`;

const WORKDIR = '/app';
const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const [build, runtime] = stages;
const ops = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op);

describe('the Dockerfile', () => {
  it('builds in one stage and runs a production install as a non-root user in another', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    expect(ops(build, 'WORKDIR').map((i) => i.args)).toEqual([WORKDIR]);
    expect(ops(runtime, 'WORKDIR').map((i) => i.args)).toEqual([WORKDIR]);
    expect(ops(build, 'RUN').some((i) => /\bnpm run build\b/.test(i.args))).toBe(true);
    expect(ops(runtime, 'RUN').some((i) => /\bnpm ci\b.*--omit=dev/.test(i.args))).toBe(true);
    expect(ops(runtime, 'COPY').filter((i) => i.flags.from === 'build').map((i) => i.args)).toEqual(['/app/dist ./dist', '/app/plugins ./plugins']);
    const user = ops(runtime, 'USER').at(-1)?.args ?? 'root';
    expect(user).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
    expect(JSON.parse(ops(runtime, 'ENTRYPOINT')[0].args)).toEqual(['rpc-gateway']);
    const cmd = JSON.parse(ops(runtime, 'CMD')[0].args) as string[];
    expect(cmd[0]).toBe('start');
    expect(cmd).toEqual(expect.arrayContaining(['tcp://0.0.0.0:26657', '0.0.0.0:8545', '0.0.0.0:8546']));
  });
});

describe('the image recipe without Docker', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rpcgw-image-'));
  const buildDir = join(tmp, 'build');
  const appDir = join(tmp, 'app');
  const home = join(tmp, 'home');
  const mounted = join(tmp, 'mnt', 'hello');
  let gateway: Started | undefined;

  beforeAll(async () => {
    const ignored = dockerignore();
    // Build stage.
    mkdirSync(buildDir);
    for (const step of build.instructions) {
      if (step.op === 'COPY') copy(step.args, ROOT, buildDir, WORKDIR, ignored);
      else if (step.op === 'RUN' && /\bnpm ci\b/.test(step.args)) {
        expect(step.args).toMatch(/^npm ci( --[\w-]+)*$/);
        // The dev dependencies of this same package-lock.json, installed by the checkout's npm ci.
        symlinkSync(join(ROOT, 'node_modules'), join(buildDir, 'node_modules'), 'dir');
      } else if (step.op === 'RUN') sh(step.args, buildDir, process.env);
    }
    // Runtime stage. Its RUN steps see this machine's environment (npm's config and cache) under the
    // image's ENV; the gateway sees the image's ENV only.
    mkdirSync(appDir);
    const runtimeEnv: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: tmp };
    for (const step of runtime.instructions) {
      if (step.op === 'ENV') applyEnv(step.args, appDir, WORKDIR, runtimeEnv);
      else if (step.op === 'COPY') copy(step.args, step.flags.from === 'build' ? buildDir : ROOT, appDir, WORKDIR, step.flags.from ? undefined : ignored);
      else if (step.op === 'RUN') sh(step.args, appDir, { ...process.env, ...runtimeEnv, HOME: process.env.HOME, npm_config_prefer_offline: 'true' });
    }
    // A plugin mounted outside the package, as the chart mounts one from a ConfigMap.
    mkdirSync(mounted, { recursive: true });
    writeFileSync(join(mounted, 'index.js'), PLUGIN);

    const entrypoint = JSON.parse(ops(runtime, 'ENTRYPOINT')[0].args) as string[];
    const cmd = (JSON.parse(ops(runtime, 'CMD')[0].args) as string[]).map((arg) =>
      arg.replace(/^tcp:\/\/0\.0\.0\.0:\d+$/, 'tcp://127.0.0.1:0').replace(/^0\.0\.0\.0:\d+$/, '127.0.0.1:0'),
    );
    const bin = runtimeEnv.PATH.split(delimiter).map((dir) => join(dir, entrypoint[0])).find((path) => existsSync(path));
    if (!bin) throw new Error(`the entrypoint ${entrypoint[0]} is not on the image's PATH ${runtimeEnv.PATH}`);
    expect(bin.startsWith(appDir)).toBe(true);
    const args = [
      ...entrypoint.slice(1),
      ...cmd,
      '--home', home,
      '--set', 'instrumentation.prometheus_listen_addr=127.0.0.1:0',
      '--set', `plugins.load=plugins/cosmos,${mounted}`,
      '--json-rpc.api', 'eth,net,web3,hello',
    ];
    const child = spawn(bin, args, { cwd: tmp, env: { ...runtimeEnv, RPCGW_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    gateway = await listening(child, 60_000);
  }, 240_000);

  afterAll(async () => {
    const child = gateway?.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it('installs the production dependencies only', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const has = (name: string) => existsSync(join(appDir, 'node_modules', name, 'package.json'));
    expect(Object.keys(pkg.dependencies).filter((name) => !has(name))).toEqual([]);
    // No package that only development needs (the lock file's `dev` flag): a dev dependency that a
    // production package also requires (protobufjs requires @types/node) is installed, as npm does.
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const devOnly = Object.entries(lock.packages)
      .filter(([path, entry]) => entry.dev === true && path.startsWith('node_modules/') && !path.slice('node_modules/'.length).includes('node_modules/'))
      .map(([path]) => path.slice('node_modules/'.length));
    expect(devOnly.length).toBeGreaterThan(0);
    expect(devOnly.filter(has)).toEqual([]);
    expect(['typescript', 'jest', '@swc/core'].filter(has)).toEqual([]);
    expect(existsSync(join(appDir, 'dist', 'main.js'))).toBe(true);
    expect(existsSync(join(appDir, 'plugins', 'cosmos', 'index.js'))).toBe(true);
    expect(existsSync(join(appDir, 'src'))).toBe(false);
  });

  it('answers the node RPC, the EVM JSON-RPC and the probes', async () => {
    const { nodeUrl, evmUrl, metricsUrl } = gateway!;
    const status = (await (await fetch(`${nodeUrl}/status`)).json()) as { result: { node_info: { network: string } } };
    expect(status.result.node_info.network).toBe('rpcgw-devnet-1');
    expect(await rpc(evmUrl, 'eth_chainId')).toBe('0x2328');
    expect((await fetch(`${metricsUrl}/livez`)).status).toBe(200);
    expect((await fetch(`${metricsUrl}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${metricsUrl}/metrics`)).text()).toContain('rpcgw_requests_total');
  });

  it('loads a plugin mounted outside the package, against the same plugin API', async () => {
    expect(await rpc(gateway!.evmUrl, 'hello_greet', ['pod'])).toBe('hello, pod');
  });

  it('drains and exits 0 on SIGTERM', async () => {
    const child = gateway!.child;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 20_000);
});
