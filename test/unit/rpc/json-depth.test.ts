import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../../src/rpc/json-scan';
import { parseEvmBody } from '../../../src/evm-rpc/evm-envelope';
import { NodeDialect } from '../../../src/node-rpc/node-dialect';

const deep = (n: number, open = '[', close = ']') => open.repeat(n) + close.repeat(n);

describe('nestedDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(nestedDeeperThan(deep(3), 0, 3)).toBe(false);
    expect(nestedDeeperThan(deep(4), 0, 3)).toBe(true);
    expect(nestedDeeperThan('{"a":{"b":[1]}}', 0, 3)).toBe(false);
    expect(nestedDeeperThan('{"a":{"b":[[1]]}}', 0, 3)).toBe(true);
    expect(nestedDeeperThan(`{"a":"${'['.repeat(50)}\\"["}`, 0, 3)).toBe(false);
  });

  it('looks at the first value only, and at unfinished text up to where it ends', () => {
    expect(nestedDeeperThan(`[1] ${deep(10)}`, 0, 3)).toBe(false);
    expect(nestedDeeperThan('[[[[', 0, 3)).toBe(true);
    expect(nestedDeeperThan('"[[[[["', 0, 3)).toBe(false);
    expect(nestedDeeperThan('12', 0, 3)).toBe(false);
  });
});

describe('deep bodies are refused at parse time, with no stack overflow', () => {
  const body = (depth: number) => `{"jsonrpc":"2.0","id":1,"method":"block","params":${deep(depth - 1)}}`;

  it('node RPC: a parse error naming the depth, over HTTP and WebSocket', () => {
    const dialect = new NodeDialect();
    for (const transport of ['jsonrpc', 'ws'] as const) {
      const parsed = dialect.parse(body(100_000), transport);
      expect(parsed).toMatchObject({ kind: 'error', error: { code: -32700, data: `error unmarshaling request: exceeded max depth (${MAX_JSON_DEPTH})` } });
    }
    expect(dialect.parse(body(MAX_JSON_DEPTH), 'jsonrpc').kind).toBe('single');
    expect(dialect.parse(body(MAX_JSON_DEPTH + 1), 'jsonrpc').kind).toBe('error');
  });

  it('EVM RPC: a parse error', () => {
    expect(parseEvmBody(body(100_000))).toMatchObject({ kind: 'error', error: { code: -32700, message: 'parse error' } });
    expect(parseEvmBody(`[${body(100_000)}]`)).toMatchObject({ kind: 'error', error: { code: -32700 } });
    expect(parseEvmBody(body(MAX_JSON_DEPTH)).kind).toBe('single');
  });
});
