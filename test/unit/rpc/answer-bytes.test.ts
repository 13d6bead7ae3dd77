/**
 * A reply's size, which the transports write as Content-Length and the metrics count, is counted
 * without scanning an unread result: it must still be the UTF-8 size of the body written, for every
 * kind of answer (ids and results outside ASCII included).
 */
import fc from 'fast-check';
import { NodeDialect } from '../../../src/node-rpc/node-dialect';
import { answerBytes } from '../../../src/rpc/answer-pieces';
import { RpcEngine } from '../../../src/rpc/engine';
import { resultAnswer, resultAnswerBytes } from '../../../src/rpc/envelope';
import { MethodNotFoundError } from '../../../src/rpc/errors';
import { defineMethod } from '../../../src/rpc/method';
import { MethodRegistry } from '../../../src/rpc/method-registry';
import { LARGE_RESULT, UnreadJson } from '../../../src/rpc/result-json';
import { jsonValue, settings } from '../fuzz/arbitraries';

/** An engine whose one method answers whatever `answer` holds at the time, under batch limits (0 = none). */
function engineAnswering(maxRequests = 0, maxResultBytes = 0): { engine: RpcEngine; answer: { value: unknown } } {
  const answer: { value: unknown } = { value: null };
  const registry = new MethodRegistry();
  registry.registerAll([defineMethod({ name: 'give', group: 'test', params: [], handler: () => answer.value })]);
  const engine = new RpcEngine(
    new NodeDialect(),
    registry,
    { unsafeEnabled: () => false, groupEnabled: () => true, websocketOnlyRefusal: () => new MethodNotFoundError('websocket-only') },
    () => ({ requests: { max: maxRequests, key: 'max_request_batch_size' }, responseBytes: { max: maxResultBytes, key: 'max_response_bytes' } }),
  );
  return { engine, answer };
}

const ids = fc.oneof(fc.integer(), fc.string(), fc.constantFrom('héllo', '€', '😀'));
const results = fc.oneof(
  jsonValue,
  fc.string().map((s) => UnreadJson.ofText(JSON.stringify(s))),
  jsonValue.map((v) => UnreadJson.ofWire(Buffer.from(JSON.stringify(v) ?? 'null'))),
);

describe('a reply counts its bytes', () => {
  it('is the UTF-8 size of the body, for any id and result, single and in a batch, whole or in pieces', async () => {
    const { engine, answer } = engineAnswering();
    await fc.assert(
      fc.asyncProperty(ids, results, fc.boolean(), fc.boolean(), async (id, result, batch, pieces) => {
        answer.value = result;
        const call = { jsonrpc: '2.0', id, method: 'give', params: {} };
        const reply = await engine.handle(JSON.stringify(batch ? [call, { ...call, method: 'nope' }] : call), { transport: 'jsonrpc', remote: 'test', bytes: 0, ...(pieces ? { pieces: true as const } : {}) });
        expect(reply.bytes).toBe(answerBytes(reply.body!));
      }),
      settings(),
    );
  });

  it('a batch refused whole, or cut short by its result-size cap, counts the errors it answers', async () => {
    for (const [maxRequests, maxResultBytes] of [[1, 0], [0, 1]]) {
      const { engine, answer } = engineAnswering(maxRequests, maxResultBytes);
      answer.value = 'é'.repeat(10);
      const call = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'give', params: {} });
      const reply = await engine.handle(JSON.stringify([call('ü'), call(2), call('€')]), { transport: 'jsonrpc', remote: 'test', bytes: 0 });
      expect(reply.bytes).toBe(answerBytes(reply.body!));
    }
  });

  it('a large unread result answered in pieces: the head, its bytes and the brace', async () => {
    const { engine, answer } = engineAnswering();
    const text = JSON.stringify('é'.repeat(LARGE_RESULT));
    answer.value = UnreadJson.ofBytes([Buffer.from(text.slice(0, 100)), Buffer.from(text.slice(100))]);
    const reply = await engine.handle('{"jsonrpc":"2.0","id":"ü","method":"give"}', { transport: 'jsonrpc', remote: 'test', bytes: 0, pieces: true });
    expect(Array.isArray(reply.body)).toBe(true);
    expect(reply.bytes).toBe(Buffer.byteLength(resultAnswer('"ü"', text)));
  });

  it('an unread text result is measured once, and as its UTF-8 bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const text = JSON.stringify(s);
        const unread = UnreadJson.ofText(text);
        expect(unread.wireBytes).toBe(Buffer.byteLength(text));
        expect(unread.wireBytes).toBe(Buffer.byteLength(text));
        expect(UnreadJson.ofWire(Buffer.from(text)).wireBytes).toBe(Buffer.byteLength(text));
      }),
      settings(),
    );
  });

  it('resultAnswerBytes is the size of resultAnswer for any id text', () => {
    fc.assert(
      fc.property(fc.option(ids.map((id) => JSON.stringify(id)), { nil: undefined }), fc.string(), (idText, s) => {
        const json = JSON.stringify(s);
        expect(resultAnswerBytes(idText, Buffer.byteLength(json))).toBe(Buffer.byteLength(resultAnswer(idText, json)));
      }),
      settings(),
    );
  });
});
