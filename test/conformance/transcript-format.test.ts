/** The transcript format itself: parsing, request expansion and `<~` patterns. */
import { expandRequest, matchPattern, parseTranscript, type Captures } from './transcript-format';

describe('parseTranscript', () => {
  it('reads flags, requests with headers, status lines with headers, WebSocket replies and closes', () => {
    const { flags, steps } = parseTranscript(
      [
        '# flags: rpc.unsafe=true json-rpc.api=eth,net',
        '# a comment',
        '--> Content-Type: text/plain',
        '--> POST {"id":1}',
        '<-- 415 nope\\n',
        '<-- Content-Type: text/plain',
        '--> POST',
        '<-- 200',
        '--> POST /foo  {}',
        '<~ 404 {{...}}',
        '--> GET@ws /',
        '<-- 400 Bad Request\\n',
        '--> WS {"id":2}',
        '<-- {"id":2}',
        '<~ {"id":{{any}}}',
        '--> WS',
        '<-- close 1009',
        '--> OPEN /other',
        '<-- 101',
      ].join('\n'),
    );
    expect(flags).toEqual({ 'rpc.unsafe': 'true', 'json-rpc.api': 'eth,net' });
    expect(steps.map((s) => s.request)).toEqual([
      { kind: 'http', method: 'POST', listener: 'http', path: '/', headers: [['Content-Type', 'text/plain']], body: '{"id":1}' },
      { kind: 'http', method: 'POST', listener: 'http', path: '/', headers: [], body: '' },
      { kind: 'http', method: 'POST', listener: 'http', path: '/foo', headers: [], body: ' {}' },
      { kind: 'http', method: 'GET', listener: 'ws', path: '/', headers: [], body: '' },
      { kind: 'ws', message: '{"id":2}' },
      { kind: 'ws', message: '' },
      { kind: 'open', path: '/other', headers: [] },
    ]);
    expect(steps[0].replies).toEqual([
      { line: 5, kind: 'http', exact: true, status: 415, body: 'nope\n', headers: [['Content-Type', 'text/plain']] },
    ]);
    expect(steps[4].replies.map((r) => r.kind === 'text' && r.exact)).toEqual([true, false]);
    expect(steps[5].replies).toEqual([{ line: 17, kind: 'close', code: 1009 }]);
  });

  it('refuses replies without a request, and HTTP requests without exactly one status line', () => {
    expect(() => parseTranscript('<-- 200')).toThrow('line 1: a reply before any request');
    expect(() => parseTranscript('--> POST {}')).toThrow('line 1: expected one reply line');
    expect(() => parseTranscript('--> POST {}\n<-- 200\n<-- 200')).toThrow('line 3: one status line per HTTP request');
    expect(() => parseTranscript('--> FETCH /')).toThrow('unknown request kind FETCH');
  });

  it('runs a file in every mode unless a `# modes:` line names fewer', () => {
    expect(parseTranscript('--> POST {}\n<-- 200').modes).toEqual(['embedded', 'upstream']);
    expect(parseTranscript('# flags: rpc.unsafe=true\n# modes: embedded\n--> POST {}\n<-- 200').modes).toEqual(['embedded']);
    expect(parseTranscript('# modes: upstream  embedded').modes).toEqual(['upstream', 'embedded']);
    expect(() => parseTranscript('# modes: devnet')).toThrow('line 1: unknown mode devnet (known: embedded, upstream)');
    expect(() => parseTranscript('# modes:')).toThrow('line 1: expected at least one mode');
    expect(() => parseTranscript('# modes: embedded\n# modes: upstream')).toThrow('line 2: a second modes line');
  });
});

describe('expandRequest', () => {
  const captures: Captures = new Map([['sub', '"0xabc"']]);

  it('substitutes captures, repeats and raw bytes', () => {
    expect(expandRequest('{"params":[{{sub}}]}', captures).toString()).toBe('{"params":["0xabc"]}');
    expect(expandRequest('{"message":"id {{sub}}"}', captures).toString()).toBe('{"message":"id 0xabc"}');
    expect(expandRequest('"{{ab*3}}"', captures).toString()).toBe('"ababab"');
    expect([...expandRequest('{{0x7bff}}', captures)]).toEqual([0x7b, 0xff]);
  });

  it('fails on a name not captured yet', () => {
    expect(() => expandRequest('{{nope}}', captures)).toThrow('{{nope}} was not captured by an earlier reply');
  });
});

describe('matchPattern', () => {
  it('keeps literal text exact', () => {
    expect(matchPattern('{"a":1}', '{"a":1}', new Map())).toBeDefined();
    expect(matchPattern('{"a":1}', '{"a": 1}', new Map())).toBeUndefined();
    expect(matchPattern('{"a":1}', '{"a":1}\n', new Map())).toBeUndefined();
  });

  it('{{any}} matches one JSON value, or characters inside a string', () => {
    expect(matchPattern('{"a":{{any}},"b":2}', '{"a":{"x":[1,"}"]},"b":2}', new Map())).toBeDefined();
    expect(matchPattern('{"a":{{any}}}', '{"a":1,"b":2}', new Map())).toBeUndefined();
    expect(matchPattern('{"m":"height {{any}} is past"}', '{"m":"height 12 is past"}', new Map())).toBeDefined();
    expect(matchPattern('{"m":"{{any}}"}', '{"m":"a\\"b"}', new Map())).toBeDefined();
  });

  it('{{...}} matches any text', () => {
    expect(matchPattern('<html>{{...}}</html>', '<html><a href="x">y</a></html>', new Map())).toBeDefined();
  });

  it('captures a value once and then requires it', () => {
    const captures: Captures = new Map();
    expect(matchPattern('{"result":{{id}}}', '{"result":"0x1f"}', captures)).toEqual(new Map([['id', '"0x1f"']]));
    expect(matchPattern('{"subscription":{{id}}}', '{"subscription":"0x1f"}', captures)).toBeDefined();
    expect(matchPattern('{"subscription":{{id}}}', '{"subscription":"0x20"}', captures)).toBeUndefined();
    expect(matchPattern('{"message":"filter {{id}} not found"}', '{"message":"filter 0x1f not found"}', captures)).toBeDefined();
  });

  it('a failed match captures nothing', () => {
    const captures: Captures = new Map();
    expect(matchPattern('[{{a}},2]', '[1,3]', captures)).toBeUndefined();
    expect(captures.size).toBe(0);
  });
});
