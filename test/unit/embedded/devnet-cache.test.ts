/**
 * The embedded devnet's response cache, through the backend that runs every call (DevnetMethods) over a
 * handler table and a chain whose head the test moves: latest answers die with the head (or a follower's
 * sync state), immutable ones stay, `keep` and the named height decide, errors are never kept, identical
 * calls in flight run once, and the memory stays within its bytes.
 */
import { DevnetCache, type DevnetHead } from '../../../src/backends/embedded/devnet-cache';
import { DevnetMethods } from '../../../src/backends/embedded/devnet-methods';
import { HandlerTable } from '../../../src/backends/embedded/handler-table';
import { namedParams, positionalParams } from '../../../src/backends/params-form';
import { DevnetError } from '../../../src/devnet/devnet-error';
import { foundAt, heightAt } from '../../../src/evm-rpc/block-rules';
import * as c from '../../../src/evm-rpc/codec/codecs';
import type { BlockRef } from '../../../src/evm-rpc/evm-types';
import { ApplicationError } from '../../../src/rpc/errors';
import { INTERNAL_CALL } from '../../../src/rpc/invoker';
import type { Json } from '../../../src/rpc/json';
import { defineMethod, IMMUTABLE, LATEST, NEVER, param, type AnyMethod, type MethodArgs } from '../../../src/rpc/method';

const read = { group: 'test', idempotent: true } as const;
/** A block read: one block at `latest`, kept at a number once found (null: not yet). */
const test_block = defineMethod({ ...read, name: 'test_block', params: [param('block', c.blockNumber)], cache: (a) => foundAt(a.block), height: (a) => heightAt(a.block) });
const test_immutable = defineMethod({ ...read, name: 'test_immutable', params: [param('n', c.uint)], cache: () => IMMUTABLE });
const test_never = defineMethod({ ...read, name: 'test_never', params: [], cache: () => NEVER });
const test_write = defineMethod({ group: 'test', name: 'test_write', params: [], cache: () => IMMUTABLE });

const block = (n: bigint): BlockRef => ({ kind: 'number', number: n });
const LATEST_BLOCK: BlockRef = { kind: 'tag', tag: 'latest' };

describe('the embedded devnet response cache', () => {
  let chain: { latestHeight: bigint; catchingUp: boolean };
  let runs: Record<string, number>;
  let answers: Record<string, (args: MethodArgs) => unknown>;

  const backend = (maxBytes = 1 << 20) => {
    const table = new HandlerTable();
    for (const m of [test_block, test_immutable, test_never, test_write] as AnyMethod[]) {
      table.on(m, (args: MethodArgs) => {
        runs[m.name] = (runs[m.name] ?? 0) + 1;
        return answers[m.name](args) as never;
      });
    }
    return new DevnetMethods(table, new DevnetCache(maxBytes, chain as DevnetHead), positionalParams);
  };
  const ask = async (b: DevnetMethods, method: AnyMethod, args: MethodArgs = {}) => b.answer(method, args, INTERNAL_CALL);

  beforeEach(() => {
    chain = { latestHeight: 5n, catchingUp: false };
    runs = {};
    answers = {
      test_block: (a) => {
        const ref = a.block as BlockRef;
        return { number: String(ref.kind === 'number' ? ref.number : chain.latestHeight) };
      },
      test_immutable: (a) => ({ n: String((a as { n: bigint }).n), pad: 'x'.repeat(200) }),
      test_never: () => runs.test_never,
      test_write: () => 'done',
    };
  });

  it('keeps a latest answer until the head moves, then reads the new one', async () => {
    const b = backend();
    // Kept from its second answer (docs/upstream.md#cache), and at its first at the next head.
    for (let i = 0; i < 3; i++) expect(await ask(b, test_block, { block: LATEST_BLOCK })).toEqual({ number: '5' });
    expect(runs.test_block).toBe(2);
    chain.latestHeight = 6n;
    expect(await ask(b, test_block, { block: LATEST_BLOCK })).toEqual({ number: '6' });
    expect(await ask(b, test_block, { block: LATEST_BLOCK })).toEqual({ number: '6' });
    expect(runs.test_block).toBe(3);
    expect(b.cache.memory.hits).toBe(2);
    expect(b.cache.memory.misses).toBe(3);
  });

  it("drops latest answers when a follower's sync state changes at the same height", async () => {
    const b = backend();
    await ask(b, test_block, { block: LATEST_BLOCK });
    chain.catchingUp = true;
    await ask(b, test_block, { block: LATEST_BLOCK });
    expect(runs.test_block).toBe(2);
  });

  it('keeps immutable answers across blocks, each under its canonical params', async () => {
    const b = backend();
    await ask(b, test_block, { block: block(3n) });
    chain.latestHeight = 9n;
    expect(await ask(b, test_block, { block: block(3n) })).toEqual({ number: '3' });
    await ask(b, test_block, { block: block(4n) });
    expect(runs.test_block).toBe(2);
    expect(b.cache.memory.size).toBe(2);
  });

  it("honours the rule's keep: a null (not found yet) is asked again, a found answer is kept", async () => {
    const b = backend();
    answers.test_block = () => null;
    expect(await ask(b, test_block, { block: block(3n) })).toBeNull();
    answers.test_block = () => ({ number: '3' });
    expect(await ask(b, test_block, { block: block(3n) })).toEqual({ number: '3' });
    expect(await ask(b, test_block, { block: block(3n) })).toEqual({ number: '3' });
    expect(runs.test_block).toBe(2);
  });

  it('does not keep an answer about a height the chain had not reached', async () => {
    const b = backend();
    await ask(b, test_block, { block: block(7n) });
    chain.latestHeight = 7n;
    await ask(b, test_block, { block: block(7n) });
    await ask(b, test_block, { block: block(7n) });
    expect(runs.test_block).toBe(2);
  });

  it('never keeps an error: the devnet is asked again, and its error reaches every caller as the client error', async () => {
    const b = backend();
    answers.test_immutable = () => {
      throw new DevnetError('height 9 is not available');
    };
    const first = ask(b, test_immutable, { n: 1n });
    const joined = ask(b, test_immutable, { n: 1n });
    await expect(first).rejects.toBeInstanceOf(ApplicationError);
    await expect(joined).rejects.toThrow('height 9 is not available');
    expect(runs.test_immutable).toBe(1);
    answers.test_immutable = () => ({ n: '1' });
    expect(await ask(b, test_immutable, { n: 1n })).toEqual({ n: '1' });
    expect(runs.test_immutable).toBe(2);
  });

  it('runs identical calls in flight once', async () => {
    const b = backend();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    answers.test_immutable = async () => {
      await gate;
      return { n: '1' };
    };
    const calls = [ask(b, test_immutable, { n: 1n }), ask(b, test_immutable, { n: 1n }), ask(b, test_immutable, { n: 2n })];
    release();
    expect(await Promise.all(calls)).toEqual([{ n: '1' }, { n: '1' }, { n: '1' }]);
    expect(runs.test_immutable).toBe(2);
  });

  it('answers a hit as it is, not as a promise', async () => {
    const b = backend();
    await ask(b, test_immutable, { n: 1n });
    expect(b.answer(test_immutable as AnyMethod, { n: 1n }, INTERNAL_CALL)).toEqual({ n: '1', pad: 'x'.repeat(200) });
  });

  it('runs a method without a rule, and one that is not idempotent, on every call', async () => {
    const b = backend();
    await ask(b, test_never);
    await ask(b, test_never);
    await ask(b, test_write);
    await ask(b, test_write);
    expect([runs.test_never, runs.test_write]).toEqual([2, 2]);
    expect(b.cache.memory.misses).toBe(0);
  });

  it('stays within [cache] max_bytes, evicting the least recently used', async () => {
    const b = backend(1_000);
    for (let n = 1n; n <= 10n; n++) await ask(b, test_immutable, { n });
    expect(b.cache.memory.bytes).toBeLessThanOrEqual(1_000);
    expect(b.cache.memory.evictions).toBeGreaterThan(0);
    await ask(b, test_immutable, { n: 10n });
    await ask(b, test_immutable, { n: 1n });
    expect(runs.test_immutable).toBe(11);
  });

  it('keeps nothing with max_bytes 0', async () => {
    const b = backend(0);
    await ask(b, test_immutable, { n: 1n });
    await ask(b, test_immutable, { n: 1n });
    expect(runs.test_immutable).toBe(2);
  });

  it("caches a computed method (the gateway's own handler) by its rule too, keyed by the node RPC's named params", async () => {
    let computed = 0;
    const hello = defineMethod({ ...read, name: 'hello_twice', params: [param('n', c.uint)], cache: () => LATEST, handler: (a) => (computed++, String(a.n * 2n)) });
    const b = new DevnetMethods(new HandlerTable(), new DevnetCache(1 << 20, chain as DevnetHead), namedParams);
    const compute = (n: bigint) => b.compute(hello as AnyMethod, { n }, INTERNAL_CALL) as Json | Promise<Json>;
    // Kept from its second answer (docs/upstream.md#cache).
    for (let i = 0; i < 3; i++) expect(await compute(2n)).toBe('4');
    expect(await compute(3n)).toBe('6');
    expect(computed).toBe(3);
    chain.latestHeight = 6n;
    await compute(2n);
    await compute(2n);
    expect(computed).toBe(4);
  });
});
