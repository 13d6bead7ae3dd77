import { id, toBeHex, zeroPadValue } from 'ethers';
import type { LogFilter } from '../../../src/evm-rpc/evm-types';
import { errorOf } from './harness';
import { compileProbe, EvmHarness, at, startEvmDevnet } from './evm-harness';

type Obj = Record<string, any>;
const COUNTED = id('Counted(address,uint256,string)');
const CAPS = { blockRange: 10_000, logs: 10_000 };
const topicOf = (address: string): string => zeroPadValue(address, 32).toLowerCase();

describe('embedded devnet: eth_getLogs', () => {
  let h: EvmHarness;
  let first: string;
  let second: string;
  /** Heights of the three blocks with logs. */
  const heights: bigint[] = [];
  const { abi } = compileProbe();

  beforeAll(async () => {
    h = await startEvmDevnet();
    first = await h.deployProbe(h.wallets[0]);
    second = await h.deployProbe(h.wallets[0], 100n);
    const bump = (wallet: number, probe: string, note: string) => h.send(h.wallets[wallet], { to: probe, data: abi.encodeFunctionData('bump', [note]) });
    await bump(1, first, 'a');
    await bump(2, second, 'b');
    await h.nextBlock();
    heights.push(h.backend.devnet.latestHeight);
    await h.nextBlock();
    await bump(1, first, 'c');
    await h.nextBlock();
    heights.push(h.backend.devnet.latestHeight);
    await bump(2, first, 'd');
    await bump(1, second, 'e');
    await h.nextBlock();
    heights.push(h.backend.devnet.latestHeight);
    await h.nextBlock();
  });
  afterAll(() => h.stop());

  const notes = (logs: Obj[]): string[] => logs.map((log) => abi.decodeEventLog('Counted', log.data, log.topics).note);
  const query = (filter: LogFilter) => h.evm.getLogs(filter, CAPS);

  it('returns every log of a range in order, with block-wide log indexes', async () => {
    const logs = await query({ fromBlock: at(heights[0]), toBlock: at(heights[2]) });
    expect(notes(logs)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(logs.map((l) => l.logIndex)).toEqual(['0x0', '0x1', '0x0', '0x0', '0x1']);
    expect(logs.map((l) => l.transactionIndex)).toEqual(['0x0', '0x1', '0x0', '0x0', '0x1']);
    expect(logs[0].blockHash).toBe(((await h.evm.getBlockByNumber(at(heights[0]), false)) as Obj).hash);
    // No bounds: the head only (no logs there); earliest to latest: everything.
    expect(await query({})).toEqual([]);
    expect(notes(await query({ fromBlock: { kind: 'tag', tag: 'earliest' }, toBlock: { kind: 'tag', tag: 'latest' } }))).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('filters by address and by topics', async () => {
    const all = { fromBlock: at(1), toBlock: { kind: 'tag', tag: 'latest' } } as const;
    expect(notes(await query({ ...all, address: [first] }))).toEqual(['a', 'c', 'd']);
    expect(notes(await query({ ...all, address: [first, second] }))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(notes(await query({ ...all, topics: [[COUNTED], [topicOf(h.wallets[2].address)]] }))).toEqual(['b', 'd']);
    expect(notes(await query({ ...all, topics: [null, [topicOf(h.wallets[1].address)]] }))).toEqual(['a', 'c', 'e']);
    expect(notes(await query({ ...all, address: [second], topics: [null, null, [toBeHex(101, 32), toBeHex(102, 32)]] }))).toEqual(['b', 'e']);
    expect(await query({ ...all, topics: [[id('Other()')]] })).toEqual([]);
    // More topic positions than the log has: no match.
    expect(await query({ ...all, topics: [null, null, null, null] })).toEqual([]);
  });

  it('reads one block by hash', async () => {
    const block = (await h.evm.getBlockByNumber(at(heights[2]), false)) as Obj;
    expect(notes(await query({ blockHash: block.hash as string }))).toEqual(['d', 'e']);
    expect(await errorOf(query({ blockHash: '0x' + '99'.repeat(32) }))).toBe('unknown block');
  });

  it('applies the range rules and caps', async () => {
    const head = h.backend.devnet.latestHeight;
    expect(await errorOf(h.evm.getLogs({ fromBlock: at(1), toBlock: at(head) }, { blockRange: 2, logs: 100 }))).toBe('maximum [from, to] blocks distance: 2');
    expect(await errorOf(h.evm.getLogs({ fromBlock: at(1), toBlock: at(head) }, { blockRange: 100, logs: 4 }))).toBe('query returned more than 4 results');
    expect(await h.evm.getLogs({ fromBlock: at(1), toBlock: at(head) }, { blockRange: 100, logs: 5 })).toHaveLength(5);
    // go-ethereum's range errors, both invalid params (-32602).
    expect(await errorOf(query({ fromBlock: at(head + 1n), toBlock: at(head + 5n) }))).toBe('block range extends beyond current head block');
    expect(await errorOf(query({ fromBlock: at(heights[2]), toBlock: at(head + 50n) }))).toBe('block range extends beyond current head block');
    expect(await errorOf(query({ fromBlock: at(head + 1n) }))).toBe('invalid block range params');
    expect(await errorOf(query({ fromBlock: at(heights[2]), toBlock: at(heights[0]) }))).toBe('invalid block range params');
    await expect(query({ fromBlock: at(heights[2]), toBlock: at(heights[0]) })).rejects.toMatchObject({ code: -32602 });
    expect(notes(await query({ fromBlock: at(heights[2]), toBlock: at(head) }))).toEqual(['d', 'e']);
  });
});
