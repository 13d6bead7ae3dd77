import { conditionMatchesValue, parseQuery } from '../../../src/events/query';

const matches = (query: string, events: Record<string, string[]>): boolean => parseQuery(query).matches(events);
const valueMatches = (query: string, value: string): boolean => conditionMatchesValue(parseQuery(query).conditions[0], value);

describe('Query.matches', () => {
  it('matches a string equality against any value of the key', () => {
    expect(matches("tm.event = 'Tx'", { 'tm.event': ['Tx'] })).toBe(true);
    expect(matches("tm.event = 'Tx'", { 'tm.event': ['NewBlock', 'Tx'] })).toBe(true);
    expect(matches("tm.event = 'Tx'", { 'tm.event': ['NewBlock'] })).toBe(false);
    expect(matches("tm.event = 'Tx'", { 'other.key': ['Tx'] })).toBe(false);
  });

  it('never matches an empty events map', () => {
    expect(matches('a.b EXISTS', {})).toBe(false);
    expect(matches("a.b CONTAINS ''", {})).toBe(false);
  });

  it('needs every condition, each on its own key and value', () => {
    const events = { 'tm.event': ['Tx'], 'transfer.sender': ['alice'], 'transfer.amount': ['5'] };
    expect(matches("tm.event = 'Tx' AND transfer.sender = 'alice' AND transfer.amount > 4", events)).toBe(true);
    expect(matches("tm.event = 'Tx' AND transfer.sender = 'bob'", events)).toBe(false);
    expect(matches("tm.event = 'Tx' AND transfer.amount > 5", events)).toBe(false);
  });

  it('evaluates conditions independently, not against one value', () => {
    expect(matches('a.n > 5 AND a.n < 3', { 'a.n': ['1', '9'] })).toBe(true);
  });

  it('tests EXISTS for a key with values, or for an event type', () => {
    expect(matches('transfer.amount EXISTS', { 'transfer.amount': ['5'] })).toBe(true);
    expect(matches('transfer.amount EXISTS', { 'transfer.amount': [] })).toBe(false);
    expect(matches('transfer EXISTS', { 'transfer.amount': [] })).toBe(true);
    expect(matches('transfer.amount EXISTS', { 'transfer.sender': ['x'] })).toBe(false);
    // A key without a dot has no event type, so nothing can name it.
    expect(matches('amount EXISTS', { amount: ['5'] })).toBe(false);
  });

  it('tests CONTAINS as a substring', () => {
    expect(matches("a.b CONTAINS 'tom'", { 'a.b': ['8atom'] })).toBe(true);
    expect(matches("a.b CONTAINS 'Atom'", { 'a.b': ['8atom'] })).toBe(false);
    expect(matches("a.b CONTAINS ''", { 'a.b': [''] })).toBe(true);
  });
});

describe('conditionMatchesValue', () => {
  it('compares numbers by value', () => {
    expect(valueMatches('a = 5', '5')).toBe(true);
    expect(valueMatches('a = 5', '5.0')).toBe(true);
    expect(valueMatches('a = 5', '005')).toBe(true);
    expect(valueMatches('a = 5.', '5')).toBe(true);
    expect(valueMatches('a = 1.50', '1.5')).toBe(true);
    expect(valueMatches('a < 5', '4.99999')).toBe(true);
    expect(valueMatches('a < 5', '5')).toBe(false);
    expect(valueMatches('a <= 5', '5')).toBe(true);
    expect(valueMatches('a > 5', '5.00001')).toBe(true);
    expect(valueMatches('a >= 5', '4')).toBe(false);
  });

  it('reads a leading numeric prefix, and nothing else, as the number', () => {
    expect(valueMatches('a = 8', '8atom')).toBe(true);
    expect(valueMatches('a = 6.5', '6.5stake')).toBe(true);
    expect(valueMatches('a = 1', '1e5')).toBe(true);
    expect(valueMatches('a = 5', '5.')).toBe(true);
    expect(valueMatches('a = 5', '-5')).toBe(false);
    expect(valueMatches('a = 5', '+5')).toBe(false);
    expect(valueMatches('a = 5', ' 5')).toBe(false);
    expect(valueMatches('a < 5', 'atom')).toBe(false);
    expect(valueMatches('a < 5', '')).toBe(false);
  });

  it('compares integers beyond 2^53 exactly', () => {
    expect(valueMatches('a = 9007199254740993', '9007199254740993')).toBe(true);
    expect(valueMatches('a = 9007199254740993', '9007199254740992')).toBe(false);
    expect(valueMatches('a > 123456789012345678901234567890', '123456789012345678901234567891')).toBe(true);
    expect(valueMatches('a < 123456789012345678901234567890', '123456789012345678901234567891')).toBe(false);
    expect(valueMatches('a = 123456789012345678901234567890', '123456789012345678901234567890.0')).toBe(true);
    expect(valueMatches('a > 0.1', '0.10000000000000000001')).toBe(true);
  });

  it('compares strings exactly', () => {
    expect(valueMatches("a = 'NewBlock'", 'NewBlock')).toBe(true);
    expect(valueMatches("a = 'NewBlock'", 'newblock')).toBe(false);
    expect(valueMatches("a = '5'", '5.0')).toBe(false);
  });

  it('compares DATE arguments with values read as dates', () => {
    expect(valueMatches('a = DATE 2013-05-03', '2013-05-03')).toBe(true);
    expect(valueMatches('a < DATE 2013-05-03', '2013-05-02')).toBe(true);
    expect(valueMatches('a <= DATE 2013-05-03', '2013-05-03')).toBe(true);
    expect(valueMatches('a > DATE 2013-05-03', '2014-01-01')).toBe(true);
    expect(valueMatches('a >= DATE 2013-05-03', '2013-05-02')).toBe(false);
    expect(valueMatches('a = DATE 2013-05-03', '2013-05-03T00:00:00Z')).toBe(false);
    expect(valueMatches('a < DATE 2013-05-03', '2013-5-2')).toBe(false);
    expect(valueMatches('a < DATE 2013-05-03', '2013-02-30')).toBe(false);
  });

  it('compares TIME arguments with values read as RFC 3339 instants', () => {
    expect(valueMatches('a = TIME 2013-05-03T14:45:00Z', '2013-05-03T14:45:00Z')).toBe(true);
    expect(valueMatches('a = TIME 2013-05-03T14:45:00Z', '2013-05-03T16:45:00+02:00')).toBe(true);
    expect(valueMatches('a > TIME 2013-05-03T14:45:00Z', '2013-05-03T14:45:00.000000001Z')).toBe(true);
    expect(valueMatches('a > TIME 2013-05-03T14:45:00Z', '2013-05-03T14:45:00.0000000009Z')).toBe(false);
    expect(valueMatches('a < TIME 2013-05-03T14:45:00Z', '2013-05-03T15:44:59+01:00')).toBe(true);
    expect(valueMatches('a <= TIME 2013-05-03T14:45:00Z', '2013-05-03T14:45:00Z')).toBe(true);
    expect(valueMatches('a >= TIME 2013-05-03T14:45:00Z', '0001-01-01T00:00:00Z')).toBe(false);
    expect(valueMatches('a < TIME 2013-05-03T14:45:00Z', '2013-05-03')).toBe(false);
    expect(valueMatches('a < TIME 2013-05-03T14:45:00Z', 'yesterday')).toBe(false);
  });

  it('accepts anything for EXISTS', () => {
    expect(valueMatches('a EXISTS', '')).toBe(true);
    expect(valueMatches('a EXISTS', 'x')).toBe(true);
  });

  it('works on conditions built by hand', () => {
    expect(conditionMatchesValue({ tag: 'tx.height', op: '>=', arg: { kind: 'number', value: '10' } }, '12')).toBe(true);
  });
});
