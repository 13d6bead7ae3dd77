/**
 * Property tests of the two envelope parsers (NodeDialect.parse, parseEvmBody): any text parses to a
 * body, never a throw; a failure is a typed RpcError.
 * Long run: FUZZ_RUNS=100000 npx jest test/unit/fuzz --runInBand --testTimeout=0 (FUZZ_SEED=<n> replays).
 */
import fc from 'fast-check';
import { Logger } from '@nestjs/common';
import { parseEvmBody } from '../../../src/evm-rpc/evm-envelope';
import { NodeDialect } from '../../../src/node-rpc/node-dialect';
import { checkBody, timed } from '../../fuzz/oracles';
import { MAX_JSON_DEPTH } from '../../../src/rpc/json-scan';
import { deepText, jsonValue, mutated, numberText, settings, unicode } from './arbitraries';

/** How many arrays and objects are nested at the deepest point of `value`. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const inner of Object.values(value)) deepest = Math.max(deepest, depthOf(inner));
  return 1 + deepest;
}

Logger.overrideLogger(false);

const id = fc.oneof(fc.integer(), numberText, numberText.map(Number), unicode, fc.constant(null), jsonValue);
const member = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), jsonValue),
    id,
    method: fc.oneof(fc.constantFrom('eth_chainId', 'status', 'x_subscription', ''), unicode, jsonValue),
    params: jsonValue,
    result: jsonValue,
    error: jsonValue,
    ID: id,
    Method: unicode,
  },
  { requiredKeys: [] },
);
const envelope = fc.oneof(member, fc.array(fc.oneof(member, jsonValue), { maxLength: 8 }), jsonValue);
/** Body texts: envelopes, then edited, padded, followed by more text, or deep. */
export const bodyText: fc.Arbitrary<string> = fc.oneof(
  envelope.map((v) => JSON.stringify(v) ?? ''),
  mutated(envelope.map((v) => JSON.stringify(v) ?? '')),
  fc.tuple(fc.constantFrom('', ' ', '\t\n', '\ufeff'), envelope.map((v) => JSON.stringify(v) ?? ''), fc.constantFrom('', ' ', '{}', 'x', ']')).map((p) => p.join('')),
  deepText,
  unicode,
  fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '1', 'a', ' ', '\\', 'n', 'u'), maxLength: 40 }),
);

describe('NodeDialect.parse', () => {
  const dialect = new NodeDialect();
  it.each(['jsonrpc', 'ws'] as const)('parses any body over %s to a body, failures typed', (transport) => {
    fc.assert(fc.property(bodyText, (text) => checkBody(timed(() => dialect.parse(text, transport)))), settings());
  });
});

describe('parseEvmBody', () => {
  it('parses any body to a body, failures typed', () => {
    fc.assert(fc.property(bodyText, (text) => checkBody(timed(() => parseEvmBody(text)))), settings());
  });

  it('reads a valid call back as the call sent, and refuses one nested deeper than the limit', () => {
    const call = fc.record({ id: fc.oneof(fc.integer(), unicode), method: unicode.filter((m) => m !== ''), params: fc.array(jsonValue, { maxLength: 3 }) });
    fc.assert(
      fc.property(call, (c) => {
        const body = parseEvmBody(JSON.stringify({ jsonrpc: '2.0', ...c }));
        // The call object and its params array are two levels above each param.
        if (1 + depthOf(c.params) > MAX_JSON_DEPTH) expect(body).toMatchObject({ kind: 'error' });
        else expect(body).toMatchObject({ kind: 'single', message: { kind: 'call', method: c.method, id: c.id } });
      }),
      settings(),
    );
  });
});
