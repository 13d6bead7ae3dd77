/**
 * Issue 24, finding 3 (files): the debug runtime methods over real sockets on the embedded devnet. A
 * file is a name under <home>/profiles, never a path; nothing is overwritten; budgets hold; the report
 * carries no environment; and the methods are closed unless enable-profiling or [rpc] unsafe is on.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { post, startTestGateway, type TestGateway } from '../support/gateway';

// A heap snapshot of the test process takes seconds, more on a busy machine.
jest.setTimeout(180_000);

const EVM = { 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0', 'json-rpc.api': 'eth,net,web3,debug' };
const SECRET = 'rpcgw-test-secret-4f1c9a';
const DISABLED = { code: -32000, message: 'profiling disabled in the debug namespace' };

let profiling: TestGateway;
let closed: TestGateway;
let unsafe: TestGateway;

beforeAll(async () => {
  process.env.RPCGW_HOSTILE_TEST_SECRET = SECRET;
  [profiling, closed, unsafe] = await Promise.all([
    // A heap snapshot of the test process, large late in a full run, takes longer than the default http-timeout.
    startTestGateway({ ...EVM, 'json-rpc.enable-profiling': 'true', 'json-rpc.profile-max-size': '1000000', 'json-rpc.http-timeout': '170s' }),
    startTestGateway(EVM),
    startTestGateway({ ...EVM, 'rpc.unsafe': 'true', 'json-rpc.profile-dir-max-size': '1000000' }),
  ]);
}, 60_000);

afterAll(async () => {
  delete process.env.RPCGW_HOSTILE_TEST_SECRET;
  await Promise.all([profiling?.close(), closed?.close(), unsafe?.close()]);
});

async function rpc(gw: TestGateway, method: string, params: unknown[] = []): Promise<any> {
  return (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method, params })).json;
}
const profiles = (gw: TestGateway) => join(gw.home, 'profiles');

describe('file names', () => {
  const tricks = ['../escape.json', '/tmp/rpcgw-abs.json', 'a/b.json', 'a\\b.json', '', '.', '..', '..json', '~/x.json', 'x\u0000y', '/proc/self/fd/1', 'config/priv_validator_key.json'];

  it.each(tricks)('%j is refused by every writer, and nothing is written', async (name) => {
    for (const [method, params] of [
      ['debug_writeMutexProfile', [name]],
      ['debug_writeBlockProfile', [name]],
      ['debug_writeMemProfile', [name]],
      ['debug_startCPUProfile', [name]],
      ['debug_blockProfile', [name, 0]],
      ['debug_cpuProfile', [name, 0]],
    ] as const) {
      const res = await rpc(profiling, method, [...params]);
      expect(res.error).toEqual({ code: -32000, message: expect.stringMatching(/^invalid profile file name .*: want a file name, written under \$HOME\/profiles\//) });
    }
    expect(existsSync(join(profiling.home, 'escape.json'))).toBe(false);
    expect(existsSync('/tmp/rpcgw-abs.json')).toBe(false);
    expect(readdirSync(profiling.home).includes('..json')).toBe(false);
  });

  it('the allowed case writes under <home>/profiles, without the environment', async () => {
    expect((await rpc(profiling, 'debug_writeMutexProfile', ['mutex.json'])).result).toBeNull();
    expect((await rpc(profiling, 'debug_setBlockProfileRate', [1])).result).toBeNull();
    expect((await rpc(profiling, 'debug_writeBlockProfile', ['block.json'])).result).toBeNull();
    await rpc(profiling, 'debug_setBlockProfileRate', [0]);
    expect((await rpc(profiling, 'debug_startCPUProfile', ['cpu.cpuprofile'])).result).toBeNull();
    expect((await rpc(profiling, 'debug_stopCPUProfile')).result).toBeNull();
    const mutex = readFileSync(join(profiles(profiling), 'mutex.json'), 'utf8');
    expect(JSON.parse(mutex)).toHaveProperty('javascriptStack');
    expect(JSON.parse(mutex)).not.toHaveProperty('environmentVariables');
    expect(mutex).not.toContain(SECRET);
    expect(JSON.parse(readFileSync(join(profiles(profiling), 'block.json'), 'utf8')).eventLoopDelay).toHaveProperty('max');
    expect(JSON.parse(readFileSync(join(profiles(profiling), 'cpu.cpuprofile'), 'utf8'))).toHaveProperty('nodes');
  });
});

describe('no clobbering', () => {
  it('a name already written is refused, and the file is left as it was', async () => {
    expect((await rpc(profiling, 'debug_writeMutexProfile', ['once.json'])).result).toBeNull();
    const before = readFileSync(join(profiles(profiling), 'once.json'), 'utf8');
    for (const method of ['debug_writeMutexProfile', 'debug_writeBlockProfile', 'debug_writeMemProfile', 'debug_startCPUProfile']) {
      expect((await rpc(profiling, method, ['once.json'])).error).toEqual({ code: -32000, message: 'open profiles/once.json: file exists (profiles are never overwritten)' });
    }
    expect(readFileSync(join(profiles(profiling), 'once.json'), 'utf8')).toBe(before);
  });

  it('a file or a symbolic link planted in the folder is not written through', async () => {
    mkdirSync(profiles(profiling), { recursive: true });
    const target = join(profiling.home, 'config', 'precious.json');
    writeFileSync(target, 'keep');
    symlinkSync(target, join(profiles(profiling), 'link.json'));
    writeFileSync(join(profiles(profiling), 'planted.json'), 'mine');
    expect((await rpc(profiling, 'debug_writeMutexProfile', ['link.json'])).error.message).toBe('open profiles/link.json: file exists (profiles are never overwritten)');
    expect((await rpc(profiling, 'debug_writeBlockProfile', ['planted.json'])).error.message).toBe('open profiles/planted.json: file exists (profiles are never overwritten)');
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(readFileSync(join(profiles(profiling), 'planted.json'), 'utf8')).toBe('mine');
  });
});

describe('budgets', () => {
  it('a heap snapshot over profile-max-size is cut off and removed; a second one meanwhile is refused', async () => {
    const [first, second] = await Promise.all([rpc(profiling, 'debug_writeMemProfile', ['heap1.heapsnapshot']), rpc(profiling, 'debug_writeMemProfile', ['heap2.heapsnapshot'])]);
    expect(first.error).toEqual({ code: -32000, message: 'profile too large: over [json-rpc] profile-max-size (1000000 bytes)' });
    expect(second.error).toEqual({ code: -32000, message: 'another profile is being written; try again when it is done' });
    expect(existsSync(join(profiles(profiling), 'heap1.heapsnapshot'))).toBe(false);
    expect(existsSync(join(profiles(profiling), 'heap2.heapsnapshot'))).toBe(false);
  });

  it('a full folder (profile-dir-max-size) refuses every write until old profiles are removed', async () => {
    mkdirSync(profiles(unsafe), { recursive: true });
    writeFileSync(join(profiles(unsafe), 'old.bin'), Buffer.alloc(999_000));
    const res = await rpc(unsafe, 'debug_writeMutexProfile', ['report.json']);
    expect(res.error).toEqual({
      code: -32000,
      message: 'profiles folder full: 999000 of [json-rpc] profile-dir-max-size 1000000 bytes used; remove old profiles from $HOME/profiles',
    });
    expect(existsSync(join(profiles(unsafe), 'report.json'))).toBe(false);
  });
});

describe('gates', () => {
  it('with enable-profiling and [rpc] unsafe off, every runtime method answers cosmos/evm\'s error and writes nothing', async () => {
    for (const [method, params] of [
      ['debug_writeMutexProfile', ['m.json']],
      ['debug_writeBlockProfile', ['b.json']],
      ['debug_writeMemProfile', ['h.heapsnapshot']],
      ['debug_startCPUProfile', ['c.cpuprofile']],
      ['debug_stopCPUProfile', []],
      ['debug_cpuProfile', ['c.cpuprofile', 0]],
      ['debug_blockProfile', ['b.json', 0]],
      ['debug_setBlockProfileRate', [1]],
      ['debug_setGCPercent', [10]],
      ['debug_freeOSMemory', []],
      ['debug_memStats', []],
      ['debug_gcStats', []],
      ['debug_stacks', []],
    ] as const) {
      expect([method, (await rpc(closed, method, [...params])).error]).toEqual([method, DISABLED]);
    }
    expect(existsSync(profiles(closed))).toBe(false);
  });

  it('the tracers stay served with profiling off', async () => {
    const res = await rpc(closed, 'debug_traceCall', [{ to: '0x' + '11'.repeat(20) }, 'latest', { disableStack: true }]);
    expect(res.result.failed).toBe(false);
  });

  it('[rpc] unsafe = true opens them', async () => {
    expect((await rpc(unsafe, 'debug_memStats')).result.HeapAlloc).toBeGreaterThan(0);
  });
});
