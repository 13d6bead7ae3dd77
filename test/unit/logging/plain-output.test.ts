import { Writable } from 'node:stream';
import { createGatewayLogger } from '../../../src/logging/gateway-logger';
import { createPlainDestination, readableLine, resolveLogOutput } from '../../../src/logging/plain-output';

describe('resolveLogOutput', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: undefined };

  it('auto: plain with colours on a terminal, JSON elsewhere', () => {
    expect(resolveLogOutput('auto', tty, {})).toEqual({ plain: true, color: true });
    expect(resolveLogOutput('auto', pipe, {})).toEqual({ plain: false, color: false });
  });

  it('json and plain win over the terminal check', () => {
    expect(resolveLogOutput('json', tty, {})).toEqual({ plain: false, color: false });
    expect(resolveLogOutput('plain', pipe, {})).toEqual({ plain: true, color: false });
  });

  it('NO_COLOR and TERM=dumb turn colours off; FORCE_COLOR turns them on', () => {
    expect(resolveLogOutput('auto', tty, { NO_COLOR: '1' }).color).toBe(false);
    expect(resolveLogOutput('auto', tty, { TERM: 'dumb' }).color).toBe(false);
    expect(resolveLogOutput('plain', pipe, { FORCE_COLOR: '1' }).color).toBe(true);
    expect(resolveLogOutput('json', tty, { FORCE_COLOR: '1' }).color).toBe(false);
  });
});

describe('readableLine', () => {
  it('folds an RPC error line into one sentence', () => {
    const line = readableLine({
      level: 'warn',
      msg: 'rpc error',
      reqId: 'x-1',
      interface: 'evm',
      transport: 'jsonrpc',
      method: 'eth_foo',
      id: 7,
      remote: '127.0.0.1',
      ms: 0.25,
      code: -32601,
      error: 'the method eth_foo does not exist/is not available',
    });
    expect(line).toEqual({ level: 'warn', msg: 'evm eth_foo → -32601 the method eth_foo does not exist/is not available (jsonrpc, 0.25 ms, 127.0.0.1)' });
  });

  it('folds a successful call line', () => {
    expect(readableLine({ level: 'debug', msg: 'rpc call', interface: 'node', transport: 'uri', method: 'status', id: -1, ms: 1 })).toEqual({
      level: 'debug',
      msg: 'node status ok (uri, 1 ms)',
    });
  });

  it('names the context in front, except for the gateway and its block lines; other fields stay', () => {
    expect(readableLine({ msg: 'upstream a is down', context: 'UpstreamPool', upstream: 'a' })).toEqual({ msg: 'UpstreamPool: upstream a is down', upstream: 'a' });
    expect(readableLine({ msg: 'SIGTERM: draining', context: 'Gateway' })).toEqual({ msg: 'SIGTERM: draining' });
    expect(readableLine({ msg: 'block 3 · 0 txs', context: 'Blocks' })).toEqual({ msg: 'block 3 · 0 txs' });
  });
});

describe('createPlainDestination', () => {
  function logger(level: 'info' | 'debug' = 'info') {
    const out: string[] = [];
    const log = createGatewayLogger(level, createPlainDestination({ color: false, write: (text) => out.push(text) }));
    return { log, out };
  }

  it('prints each log object as one readable line: time, level, message', () => {
    const { log, out } = logger();
    log.warn({ context: 'UpstreamPool' }, 'upstream b is down');
    log.info({ context: 'Gateway' }, 'ready');
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: UpstreamPool: upstream b is down\n$/);
    expect(out[1]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: ready\n$/);
  });

  it('keeps redaction: a redacted field is still redacted', () => {
    const { log, out } = logger();
    log.info({ params: ['0xsecret'] }, 'call');
    expect(out.join('')).not.toContain('0xsecret');
  });

  it("sends Nest's start-up chatter to debug, in plain and JSON output alike", () => {
    const { log, out } = logger('info');
    log.info({ context: 'InstanceLoader' }, 'AppModule dependencies initialized');
    log.info({ context: 'NestFactory' }, 'Starting Nest application...');
    log.warn({ context: 'NestFactory' }, 'a real warning');
    expect(out).toHaveLength(1);
    expect(out[0]).toContain('WARN: NestFactory: a real warning');

    const json: any[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        json.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const debug = createGatewayLogger('debug', sink);
    debug.info({ context: 'InstanceLoader' }, 'AppModule dependencies initialized');
    debug.info({ context: 'SomeModule' }, 'hello');
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      expect(json.map((l) => [l.level, l.context])).toEqual([
        ['debug', 'InstanceLoader'],
        ['info', 'SomeModule'],
      ]);
    });
  });

  it('passes a line that is not JSON through as it is', () => {
    const out: string[] = [];
    createPlainDestination({ color: false, write: (text) => out.push(text) }).write('not json\n');
    expect(out).toEqual(['not json\n']);
  });
});
