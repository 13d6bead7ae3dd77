/**
 * SIGHUP in upstream mode, on a gateway process in front of real anvil processes: read loops across
 * reloads that replace the EVM upstream list lose no request, and after a reload to nodes of another
 * chain no answer of the old chain is served (chain id, blocks, cached reads).
 */
import { Anvil } from '../support/anvil';
import { startUpstreamGatewayProcess, upstreamToml, type EvmEntry, type UpstreamGatewayProcess } from '../support/upstream';

jest.setTimeout(90_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// health_check_interval 1s: a health probe gets 2 s, so a loaded 2-core machine does not take a slow anvil for down.
const SETTINGS = { health_check_interval: '1s' };
const toml = (evm: EvmEntry[]) => upstreamToml([], SETTINGS, evm);

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result;
}

/** Read loops until `stop()`: every failure is kept, every answer handed to `seen`. */
function readLoops(url: string, loops: number, reads: [string, unknown[]][], seen: (method: string, result: any) => void) {
  let running = true;
  const failures: string[] = [];
  let count = 0;
  const loop = async () => {
    for (let i = 0; running; i++) {
      const [method, params] = reads[i % reads.length];
      try {
        seen(method, await rpc(url, method, params));
      } catch (err) {
        failures.push((err as Error).message);
      }
      count++;
    }
  };
  const done = Promise.all(Array.from({ length: loops }, loop));
  return {
    failures,
    get count() {
      return count;
    },
    async stop() {
      running = false;
      await done;
    },
  };
}

describe('SIGHUP reload of the EVM upstream list', () => {
  let a1: Anvil;
  let a2: Anvil;
  let other: Anvil;
  let gw: UpstreamGatewayProcess;

  beforeAll(async () => {
    // a1 and a2: one chain (9001, same genesis); a2 two blocks ahead (within max_height_lag), so an
    // eth_blockNumber answer tells which of them served it. other: chain 31337, another genesis.
    [a1, a2, other] = await Promise.all([
      Anvil.start({ chainId: 9001, timestamp: 1_700_000_000, noMining: true }),
      Anvil.start({ chainId: 9001, timestamp: 1_700_000_000, noMining: true }),
      Anvil.start({ chainId: 31337, timestamp: 1_600_000_000, noMining: true }),
    ]);
    for (let i = 1; i <= 3; i++) await Promise.all([a1.rpc('evm_mine', [1_700_000_000 + i]), a2.rpc('evm_mine', [1_700_000_000 + i])]);
    await a2.rpc('evm_mine', [1_700_000_010]);
    await a2.rpc('evm_mine', [1_700_000_011]);
    for (let i = 1; i <= 3; i++) await other.rpc('evm_mine', [1_600_000_000 + i]);
    gw = await startUpstreamGatewayProcess(toml([{ name: 'a1', url: a1.url }]));
  });

  afterAll(async () => {
    await gw?.close();
    await Promise.all([a1, a2, other].map((a) => a?.stop()));
  });

  it('loses no read across reloads that replace the list, and switches to the new list', async () => {
    const heights = new Set<string>();
    // eth_blockNumber is never cached: each one goes to an upstream. Block 1 is cached once read.
    const loops = readLoops(gw.evmUrl, 4, [
      ['eth_blockNumber', []],
      ['eth_getBlockByNumber', ['0x1', false]],
      ['eth_chainId', []],
    ], (method, result) => method === 'eth_blockNumber' && heights.add(result));
    await sleep(500);
    // Replace a1 by a2, then by both, then by a1 alone: each a new list whose upstreams were never checked.
    const lists: EvmEntry[][] = [[{ name: 'a2', url: a2.url }], [{ name: 'a1', url: a1.url }, { name: 'a2b', url: a2.url }], [{ name: 'a1c', url: a1.url }]];
    for (const list of lists) {
      const since = gw.logs.length;
      gw.reload(toml(list));
      await gw.waitForLog(/^EVM upstream list reloaded: /, 30_000, since);
      await sleep(700);
    }
    await loops.stop();
    expect(loops.failures).toEqual([]);
    // Hundreds of reads ran across the reloads (at least 30 per second on a loaded host).
    expect(loops.count).toBeGreaterThan(100);
    // a1's head (3) and a2's (5) were both answered: the list did change under the loops.
    expect([...heights].sort()).toEqual(['0x3', '0x5']);
  });

  it('after a reload to nodes of another chain serves nothing of the old one', async () => {
    const oldBlock1 = await a1.rpc('eth_getBlockByNumber', ['0x1', false]);
    const newBlock1 = await other.rpc('eth_getBlockByNumber', ['0x1', false]);
    expect(newBlock1.hash).not.toBe(oldBlock1.hash);
    // Cached before the reload: the chain id, block 1, a balance at block 1.
    expect(await rpc(gw.evmUrl, 'eth_chainId')).toBe('0x2329');
    expect((await rpc(gw.evmUrl, 'eth_getBlockByNumber', ['0x1', false])).hash).toBe(oldBlock1.hash);
    expect(await rpc(gw.evmUrl, 'net_version')).toBe('9001');

    const answers: [string, any][] = [];
    const LOOPS = 3;
    const loops = readLoops(gw.evmUrl, LOOPS, [
      ['eth_chainId', []],
      ['eth_getBlockByNumber', ['0x1', false]],
      ['net_version', []],
    ], (method, result) => answers.push([method, result]));
    await sleep(300);
    const since = gw.logs.length;
    gw.reload(toml([{ name: 'other', url: other.url }]));
    const moved = await gw.waitForLog(/^EVM pool moves from chain 9001 to chain 31337/, 30_000, since);
    expect(moved).toMatch(/nothing cached or in flight for chain 9001 is served/);
    await gw.waitForLog(/^EVM upstream list reloaded: other/, 30_000, since);
    // Answers counted from the switch on, less one per loop: a read in flight at the switch finishes on a1.
    const afterSwitch = answers.length;
    await sleep(1_000);
    await loops.stop();
    expect(loops.failures).toEqual([]);
    const later = answers.slice(afterSwitch + LOOPS);
    expect(later.length).toBeGreaterThan(10);
    for (const [method, result] of later) {
      if (method === 'eth_chainId') expect(result).toBe('0x7a69');
      if (method === 'net_version') expect(result).toBe('31337');
      if (method === 'eth_getBlockByNumber') expect(result.hash).toBe(newBlock1.hash);
    }
    expect(await rpc(gw.evmUrl, 'eth_chainId')).toBe('0x7a69');
    expect((await rpc(gw.evmUrl, 'eth_getBlockByNumber', ['0x1', false])).hash).toBe(newBlock1.hash);
  });
});
