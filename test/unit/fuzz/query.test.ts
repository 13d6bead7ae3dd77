/**
 * Property tests of the CometBFT query language (parseQuery): any text parses or fails with a
 * QueryParseError, in bounded time; a parsed query printed and parsed again prints the same.
 * Long run: FUZZ_RUNS=100000 npx jest test/unit/fuzz --runInBand --testTimeout=0 (FUZZ_SEED=<n> replays).
 */
import fc from 'fast-check';
import { parseQuery, QueryParseError } from '../../../src/events/query';
import { failureOf, timed } from '../../fuzz/oracles';
import { numberText, settings, unicode } from './arbitraries';

const tag = fc.oneof(
  fc.constantFrom('tm.event', 'tx.height', 'transfer.amount', 'a.b-c_d', 'message.sender', 'x'),
  fc.string({ unit: fc.constantFrom(...'abcXYZ09._-/'.split('')), minLength: 1, maxLength: 12 }),
  unicode,
);
const op = fc.constantFrom('=', '<', '<=', '>', '>=', 'CONTAINS', 'EXISTS', '==', '!=', 'contains', '');
const date = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
const arg = fc.oneof(
  unicode.map((s) => `'${s}'`),
  unicode.map((s) => `'${s}`),
  unicode.map((s) => `"${s}"`),
  numberText,
  date.map((d) => `TIME ${d.toISOString().replace(/\.\d+Z$/, 'Z')}`),
  date.map((d) => `DATE ${d.toISOString().slice(0, 10)}`),
  fc.constantFrom('TIME 2013-05-03T14:45:00+07:00', 'TIME 2013-13-45T99:99:99Z', 'DATE 2013-02-30', 'TIME', 'DATE', 'TIME 2013-05-03T14:45:00.123456789Z', "'\\''"),
  fc.constant(''),
);
const space = fc.constantFrom('', ' ', '  ', '\t', '\n');
const condition = fc.tuple(tag, space, op, space, arg).map((p) => p.join(''));
const joiner = fc.constantFrom(' AND ', 'AND', ' and ', ' OR ', ' ', ' AND AND ');
const queryText = fc.oneof(
  fc.tuple(fc.array(condition, { minLength: 1, maxLength: 6 }), joiner).map(([cs, j]) => cs.join(j)),
  fc.array(fc.oneof(condition, joiner, unicode), { maxLength: 8 }).map((parts) => parts.join('')),
  fc.string({ unit: fc.constantFrom(..."a.=<>' ANDCONTAINSEXISTSTIMEDATE0123456789-:T+Z".split('')), maxLength: 60 }),
  fc.integer({ min: 1, max: 2000 }).map((n) => Array.from({ length: n }, (_, i) => `a${i} = ${i}`).join(' AND ')),
  unicode,
);

describe('parseQuery', () => {
  it('parses any text or fails with a QueryParseError', () => {
    fc.assert(fc.property(queryText, (text) => void failureOf(() => parseQuery(text), QueryParseError)), settings(2));
  });

  it('prints a parsed query as text that parses to the same query', () => {
    fc.assert(
      fc.property(queryText, (text) => {
        let printed: string | undefined;
        if (failureOf(() => (printed = parseQuery(text).toString()), QueryParseError)) return;
        expect(timed(() => parseQuery(printed!).toString())).toBe(printed);
      }),
      settings(2),
    );
  });
});
