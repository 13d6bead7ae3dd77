/**
 * Property tests of the whole engine, both dialects, on arbitrary bodies: handle() resolves (never
 * rejects), in bounded time, with no untyped exception logged, and its body is a valid JSON-RPC answer or
 * undefined.
 * Long run: FUZZ_RUNS=100000 npx jest test/unit/fuzz --runInBand --testTimeout=0 (FUZZ_SEED=<n> replays).
 */
import fc from 'fast-check';
import type { Origin } from '../../../src/rpc/engine';
import { checkLogged, ENGINES, engineOf, watchLog } from '../../fuzz/engines';
import { checkAnswer, timedAsync } from '../../fuzz/oracles';
import { jsonValue, mutated, numberText, settings, unicode } from './arbitraries';

watchLog();

function bodies(names: string[]): fc.Arbitrary<string> {
  const method = fc.oneof(fc.constantFrom(...names, 'rpc.nope', ''), unicode);
  const params = fc.oneof(fc.array(jsonValue, { maxLength: 5 }), fc.dictionary(fc.constantFrom('height', 'query', 'prove', 'page', 'tx', 'h', 's', 'e', 'c', 'x'), jsonValue), jsonValue);
  const id = fc.oneof(fc.integer(), numberText.map(Number), unicode, fc.constant(null), jsonValue);
  const call = fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), jsonValue), id, method, params }, { requiredKeys: ['method'] });
  const envelope = fc.oneof(call, fc.array(fc.oneof(call, jsonValue), { maxLength: 6 }), jsonValue);
  const text = envelope.map((v) => JSON.stringify(v) ?? '');
  return fc.oneof(text, text, mutated(text), unicode);
}

describe.each(ENGINES)('%s engine', (_, dialect, methods) => {
  const names = methods.map((m) => m.name);
  it.each([['jsonrpc', 0], ['ws', 0], ['jsonrpc', 3]] as const)('answers any body over %s (batch limit %d) with a JSON-RPC answer or nothing', async (transport, batch) => {
    const engine = engineOf(dialect, methods, batch);
    const origin: Omit<Origin, 'bytes'> = { transport, remote: '127.0.0.1:1' };
    await fc.assert(
      fc.asyncProperty(bodies(names), async (text) => {
        const reply = await timedAsync(() => engine.handle(text, { ...origin, bytes: Buffer.byteLength(text) }));
        checkLogged();
        if (reply.body !== undefined) checkAnswer(reply.body);
      }),
      settings(0.5),
    );
  });
});
