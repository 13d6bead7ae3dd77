import { parseQuery, QueryParseError, type Condition } from '../../../src/events/query';

function parseError(text: string): string {
  try {
    parseQuery(text);
  } catch (error) {
    expect(error).toBeInstanceOf(QueryParseError);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(text)} parsed`);
}

describe('parseQuery', () => {
  it('reads every operator and argument kind into typed conditions', () => {
    const query = parseQuery(
      "a.b-c_d = 'x y' AND b <= 5. AND c > 1.50 AND d = DATE 2013-05-03 AND e >= TIME 2013-05-03T14:45:00+07:00" +
        " AND f CONTAINS '' AND g EXISTS AND h < 3 AND i = 42",
    );
    const expected: Condition[] = [
      { tag: 'a.b-c_d', op: '=', arg: { kind: 'string', value: 'x y' } },
      { tag: 'b', op: '<=', arg: { kind: 'number', value: '5.' } },
      { tag: 'c', op: '>', arg: { kind: 'number', value: '1.50' } },
      { tag: 'd', op: '=', arg: { kind: 'date', value: '2013-05-03' } },
      { tag: 'e', op: '>=', arg: { kind: 'time', value: '2013-05-03T14:45:00+07:00' } },
      { tag: 'f', op: 'CONTAINS', arg: { kind: 'string', value: '' } },
      { tag: 'g', op: 'EXISTS' },
      { tag: 'h', op: '<', arg: { kind: 'number', value: '3' } },
      { tag: 'i', op: '=', arg: { kind: 'number', value: '42' } },
    ];
    expect(query.conditions).toEqual(expected);
  });

  it('normalizes spacing and quoting, keeping numbers as written', () => {
    expect(parseQuery("tm.event='NewBlock'").toString()).toBe("tm.event = 'NewBlock'");
    expect(parseQuery("  tx.height>=5AND\ttransfer.amount CONTAINS'atom'  ").toString()).toBe(
      "tx.height >= 5 AND transfer.amount CONTAINS 'atom'",
    );
    expect(parseQuery('a<=007.10 AND b EXISTS').toString()).toBe('a <= 007.10 AND b EXISTS');
    expect(parseQuery('t=TIME 2013-05-03T14:45:00Z AND d<DATE 2013-05-03').toString()).toBe(
      't = TIME 2013-05-03T14:45:00Z AND d < DATE 2013-05-03',
    );
  });

  it('accepts tags of letters, digits, "_", "." and "-" that start with a letter, digit or "_"', () => {
    expect(parseQuery('_x.1-y_Z = 1').conditions[0].tag).toBe('_x.1-y_Z');
    expect(parseQuery('é.ü = 1').conditions[0].tag).toBe('é.ü');
    expect(parseError('-a = 1')).toBe('offset 0: invalid input - at offset 1');
  });

  it('finds the conditions on a tag', () => {
    const query = parseQuery("tx.height >= 5 AND tx.height < 10 AND tx.hash = 'AB'");
    expect(query.conditionsFor('tx.height').map((c) => c.op)).toEqual(['>=', '<']);
    expect(query.conditionsFor('tx.hash')).toEqual([{ tag: 'tx.hash', op: '=', arg: { kind: 'string', value: 'AB' } }]);
    expect(query.conditionsFor('block.height')).toEqual([]);
  });

  it('ends the query at the end of input, even inside an unterminated string', () => {
    expect(parseQuery("a = 1 'rest").toString()).toBe('a = 1');
  });

  it.each([
    ['', 'offset 0: EOF'],
    ['   ', 'offset 3: EOF'],
    ['a =', 'offset 3: EOF'],
    ["a = 'x", 'offset 4: EOF'],
    ['a = 1 AND', 'offset 9: EOF'],
    ['tm.event=NewBlock', 'offset 9: got tag, wanted number, timestamp, datestamp or string'],
    ["a < 'x'", 'offset 4: got string, wanted number, timestamp or datestamp'],
    ['a CONTAINS 5', 'offset 11: got number, wanted string'],
    [
      'a 5',
      'offset 2: got number, wanted <= operator, >= operator, < operator, > operator, = operator, CONTAINS operator or EXISTS operator',
    ],
    ['= 5', 'offset 0: got = operator, wanted tag'],
    ['a exists', 'offset 2: got tag, wanted <= operator, >= operator, < operator, > operator, = operator, CONTAINS operator or EXISTS operator'],
    ['a = 1 b', 'offset 6: got tag, want 6'],
    ['a EXISTS 5', 'offset 9: got number, want 6'],
    ['a = 1 AND AND', 'offset 10: got AND operator, wanted tag'],
    ['a = 1 #', 'offset 6: got invalid token, want 6'],
    ['a = #', 'offset 4: invalid input # at offset 5'],
    ['é = #', 'offset 5: invalid input # at offset 6'],
    ['a = -5', 'offset 4: invalid input - at offset 5'],
  ])('rejects %j with %j', (text, message) => {
    expect(parseError(text)).toBe(message);
  });

  it.each([
    [
      'a = TIME 2013-05-03',
      'offset 4: invalid TIME value: parsing time "2013-05-03" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"',
    ],
    [
      'a = TIME 213-05-03T14:45:00Z',
      'offset 4: invalid TIME value: parsing time "213-05-03T14:45:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "213-05-03T14:45:00Z" as "2006"',
    ],
    ['a = TIME 2013-13-03T14:45:00Z', 'offset 4: invalid TIME value: parsing time "2013-13-03T14:45:00Z": month out of range'],
    ['a = TIME 2013-05-03T24:45:00Z', 'offset 4: invalid TIME value: parsing time "2013-05-03T24:45:00Z": hour out of range'],
    ['a = TIME 2013-05-03T14:45:60Z', 'offset 4: invalid TIME value: parsing time "2013-05-03T14:45:60Z": second out of range'],
    ['a = TIME 2013-05-03T14:45:00ZZ', 'offset 4: invalid TIME value: parsing time "2013-05-03T14:45:00ZZ": extra text: "Z"'],
    ['a = TIME 1800-05-03T14:45:00Z', 'offset 4: timestamp year 1800 out of range'],
    ['a = DATE 3000-01-01', 'offset 4: datestamp year 3000 out of range'],
    ['a = DATE 2013-02-30', 'offset 4: invalid DATE value: parsing time "2013-02-30": day out of range'],
    [
      'a = DATE 2013-5-03',
      'offset 4: invalid DATE value: parsing time "2013-5-03" as "2006-01-02": cannot parse "5-03" as "01"',
    ],
    [
      'TIME EXISTS',
      'offset 0: invalid TIME value: parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"',
    ],
  ])('rejects the stamp in %j with %j', (text, message) => {
    expect(parseError(text)).toBe(message);
  });

  it('accepts what Go accepts in stamps: a one-digit hour, leap days, any two-digit offset', () => {
    expect(parseQuery('a = TIME 2013-05-03T4:45:00Z').toString()).toBe('a = TIME 2013-05-03T4:45:00Z');
    expect(parseQuery('a = DATE 2012-02-29').toString()).toBe('a = DATE 2012-02-29');
    expect(parseQuery('a = TIME 2013-05-03T14:45:00+25:00').toString()).toBe('a = TIME 2013-05-03T14:45:00+25:00');
  });

  it('takes "TIME" and "DATE" not followed by a space as tags, and prints them so that they parse back as tags', () => {
    expect(parseQuery('TIME= 5 AND DATE\t= 6').toString()).toBe('TIME\t= 5 AND DATE\t= 6');
    for (const text of ['TIME<=0', 'DATE\tEXISTS', "TIME=5 AND DATE\tCONTAINS 'x'"]) {
      const printed = parseQuery(text).toString();
      expect(parseQuery(printed).conditions).toEqual(parseQuery(text).conditions);
    }
  });
});
