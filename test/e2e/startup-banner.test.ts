/**
 * The first minute, as a developer sees it: `rpc-gateway start` (the built dist/main.js, as `npm start`
 * runs it) under a pseudo-terminal (util-linux `script`) prints a banner whose endpoints, chain ids and
 * first dev account are the real ones, then a line per block; without a terminal, or with
 * `--log.format json`, every line it prints is a JSON object.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');
const FIRST_ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const FIRST_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const MNEMONIC = 'test test test test test test test test test test test junk';

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
const plain = (text: string) => text.replace(ANSI, '').replace(/\r/g, '');

/** The gateway's own flags: a fresh home, an in-memory chain and every listener on an ephemeral port. */
function startArgs(home: string, extra: string[] = []): string[] {
  return [
    MAIN,
    'start',
    '--home', home,
    '--devnet.ephemeral',
    '--devnet.block_time', '300ms',
    '--rpc.laddr', 'tcp://127.0.0.1:0',
    '--json-rpc.address', '127.0.0.1:0',
    '--json-rpc.ws-address', '127.0.0.1:0',
    '--instrumentation.prometheus',
    '--set', 'instrumentation.prometheus_listen_addr=127.0.0.1:0',
    ...extra,
  ];
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

interface Run {
  readonly child: ChildProcess;
  /** Everything printed so far (stdout, and stderr unless under `script`, where they are one terminal). */
  output(): string;
  stderr(): string;
  /** Resolves once `test` holds for the output; fails after `timeoutMs` with what was printed. */
  waitFor(test: (output: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  /** SIGTERM to the gateway itself; resolves with its exit code. */
  stop(): Promise<number | null>;
}

function watch(child: ChildProcess, gatewayPid: () => number): Run {
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    stderr: () => err,
    async waitFor(test, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!test(out)) {
        if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode}) before ${what}:\n${out}\n${err}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return out;
    },
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      try {
        process.kill(gatewayPid(), 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
      // A gateway that does not stop in time is killed, so that a failing test never hangs the run.
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      try {
        return await exited;
      } finally {
        clearTimeout(killer);
      }
    },
  };
}

/** The gateway in a pseudo-terminal: `script` gives it a tty as stdout; `exec` makes it script's only child. */
function startInTerminal(args: string[]): Run {
  const command = `exec ${[process.execPath, ...args].map(quote).join(' ')}`;
  // stdin stays an open pipe: script forwards it to the terminal, and an EOF there is a Ctrl-D.
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...process.env, TERM: 'xterm-256color' }, stdio: ['pipe', 'pipe', 'pipe'] });
  return watch(child, () => Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/)[0]));
}

function startWithoutTerminal(args: string[]): Run {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return watch(child, () => child.pid!);
}

async function rpc(url: string, method: string, params: unknown): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await res.json()) as { result: any }).result;
}

const homes: string[] = [];
const runs: Run[] = [];
function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rpcgw-banner-'));
  homes.push(dir);
  return dir;
}

beforeAll(() => {
  // What `npm start` runs is the build; CI runs only `npm ci` and `npm test`.
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
  expect(spawnSync('script', ['--version']).status).toBe(0);
}, 180_000);

afterEach(async () => {
  for (const run of runs.splice(0)) await run.stop();
});

afterAll(() => {
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

describe('on a terminal', () => {
  it('prints a banner with the real endpoints, chain ids and dev accounts, then a line per block; SIGTERM stops it', async () => {
    const dir = home();
    const run = startInTerminal(startArgs(dir));
    runs.push(run);
    await run.waitFor((o) => /Ctrl-C to stop/.test(o) && /block \d+ · \d+ txs? · 0x[0-9a-f]{12}…/.test(o), 'the banner and a block line');
    const text = plain(run.output());

    expect(text).toMatch(/^rpc-gateway \d+\.\d+\.\d+.* · ready in \d+\.\d s$/m);
    expect(text).toMatch(/^ {2}Backend +embedded devnet \(validator, a block every 300ms, in memory\)$/m);
    const chain = /^ {2}Chain ID +(\S+) +EVM (\d+) \((0x[0-9a-f]+)\)$/m.exec(text);
    expect(chain?.slice(1)).toEqual(['rpcgw-devnet-1', '9000', '0x2328']);
    const node = /^ {2}Node RPC +(http:\/\/127\.0\.0\.1:\d+) +(ws:\/\/127\.0\.0\.1:\d+\/websocket)$/m.exec(text);
    const evm = /^ {2}EVM RPC +(http:\/\/127\.0\.0\.1:\d+) +(ws:\/\/127\.0\.0\.1:\d+) +\(eth, net, web3\)$/m.exec(text);
    const metrics = /^ {2}Metrics +(http:\/\/127\.0\.0\.1:\d+\/metrics)/m.exec(text);
    expect([node, evm, metrics].map(Boolean)).toEqual([true, true, true]);
    expect(text).toMatch(new RegExp(`^ {2}Home +${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    expect(text).toContain('For development only: these keys are public.');
    expect(text).toMatch(new RegExp(`^ +\\(0\\) ${FIRST_ACCOUNT} +key ${FIRST_KEY}$`, 'm'));
    expect(text.match(/^ +\(\d\) 0x[0-9a-fA-F]{40} +key 0x[0-9a-f]{64}$/gm)).toHaveLength(10);
    expect(text).toMatch(new RegExp(`^ {2}Mnemonic +${MNEMONIC}`, 'm'));
    // Readable lines only: no JSON, no framework chatter, colours on the terminal.
    expect(text).not.toMatch(/^\{/m);
    expect(text).not.toMatch(/dependencies initialized|Starting Nest application/);
    expect(run.output()).toMatch(ANSI);

    // What the banner says is what answers there.
    expect((await rpc(`${node![1]}/`, 'status', {})).node_info.network).toBe('rpcgw-devnet-1');
    expect(await rpc(evm![1], 'eth_chainId', [])).toBe('0x2328');
    expect(await rpc(evm![1], 'eth_getBalance', [FIRST_ACCOUNT, 'latest'])).toBe('0x21e19e0c9bab2400000');
    expect(await (await fetch(metrics![1])).text()).toContain('# TYPE process_cpu_seconds_total counter');

    // A failed call is a readable warning line.
    await rpc(evm![1], 'eth_noSuchMethod', []);
    await run.waitFor((o) => plain(o).includes('WARN: evm eth_noSuchMethod → -32601'), 'the warning line');

    expect(await run.stop()).toBe(0);
    expect(plain(run.output())).toMatch(/INFO: SIGTERM: draining and shutting down$/m);
  }, 30_000);

  it('with --log.format json still prints only JSON lines', async () => {
    const run = startInTerminal(startArgs(home(), ['--log.format', 'json']));
    runs.push(run);
    await run.waitFor((o) => o.includes('"msg":"rpc-gateway'), 'the ready line');
    expect(await run.stop()).toBe(0);
    const lines = plain(run.output()).split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  }, 30_000);
});

describe('without a terminal', () => {
  it('every line of output is a JSON log object; the ready line names the version, chain ids and endpoints', async () => {
    const run = startWithoutTerminal(startArgs(home()));
    runs.push(run);
    await run.waitFor((o) => o.includes('"msg":"rpc-gateway'), 'the ready line');
    expect(await run.stop()).toBe(0);
    const lines = run.output().split('\n').filter((l) => l !== '');
    const objects = lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
    for (const o of objects) expect(o).toEqual(expect.objectContaining({ level: expect.any(String), time: expect.any(String), msg: expect.any(String) }));
    const ready = objects.find((o) => String(o.msg).startsWith('rpc-gateway '));
    expect(ready).toEqual(
      expect.objectContaining({
        level: 'info',
        backend: 'embedded',
        chain_id: 'rpcgw-devnet-1',
        evm_chain_id: '9000',
        node_rpc: [expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/)],
        evm_http: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        metrics: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      }),
    );
    // No banner, no private key, no framework chatter at info.
    expect(run.output()).not.toContain(FIRST_KEY);
    expect(objects.filter((o) => o.context === 'InstanceLoader' || o.context === 'NestFactory')).toEqual([]);
    expect(objects.map((o) => o.msg)).toContain('SIGTERM: draining and shutting down');
    expect(run.stderr()).toBe('');
  }, 30_000);
});
