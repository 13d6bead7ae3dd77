import { Writable } from 'node:stream';
import { createGatewayLogger, requestIdGenerator } from '../../../src/logging/gateway-logger';
import { RequestLog } from '../../../src/logging/request-log';
import type { CallContext } from '../../../src/rpc/call-context';
import type { Outcome } from '../../../src/rpc/engine';
import { InternalError } from '../../../src/rpc/errors';
import { defineMethod } from '../../../src/rpc/method';
import type { IncomingMessage } from 'node:http';

function capture(level: Parameters<typeof createGatewayLogger>[0]) {
  const lines: any[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: new RequestLog(createGatewayLogger(level, destination)) };
}

const method = defineMethod({ name: 'broadcast_tx_sync', group: 'tx', params: [], handler: () => undefined });
const ok: Outcome = { ok: true, result: { hash: 'AB' }, method, args: { tx: 'c2VjcmV0' } };
const failed: Outcome = { ok: false, error: new InternalError('Internal error', 'x'.repeat(500)), method };
const http: CallContext = { transport: 'jsonrpc', remote: '10.0.0.1:5000', requestId: 7, correlationId: 'abc-123' };
const ws: CallContext = { transport: 'ws', remote: '10.0.0.2:6000', requestId: 'q' };
const request = { method: 'broadcast_tx_sync', params: { tx: 'c2VjcmV0' }, id: 7 };

const flush = () => new Promise((r) => setImmediate(r));

describe('RequestLog', () => {
  it('debug: one JSON line per call with the request id; never params or results', async () => {
    const { lines, log } = capture('debug');
    log.observer('node').onCall(request, http, ok, process.hrtime.bigint());
    await flush();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'debug',
      msg: 'rpc call',
      reqId: 'abc-123',
      interface: 'node',
      transport: 'jsonrpc',
      method: 'broadcast_tx_sync',
      id: 7,
      remote: '10.0.0.1:5000',
      name: 'rpc-gateway',
    });
    expect(typeof lines[0].ms).toBe('number');
    expect(typeof lines[0].time).toBe('string');
    expect(JSON.stringify(lines[0])).not.toContain('c2VjcmV0');
    expect(JSON.stringify(lines[0])).not.toContain('"AB"');
  });

  it('info: successes are silent, errors are warn lines with code and clipped detail', async () => {
    const { lines, log } = capture('info');
    const observer = log.observer('node');
    observer.onCall(request, http, ok, process.hrtime.bigint());
    observer.onCall(request, ws, failed, process.hrtime.bigint());
    await flush();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'rpc error', transport: 'ws', code: -32603, error: 'Internal error' });
    // A WebSocket message has no HTTP request id: it gets one of its own.
    expect(lines[0].reqId).toMatch(/^ws-/);
    expect(lines[0].data.length).toBeLessThanOrEqual(121);
  });

  it('silent: nothing', async () => {
    const { lines, log } = capture('silent');
    log.observer('node').onCall(request, http, failed, process.hrtime.bigint());
    await flush();
    expect(lines).toEqual([]);
  });

  it('the logger redacts credentials and tx bodies wherever they are logged', async () => {
    const lines: any[] = [];
    const logger = createGatewayLogger(
      'info',
      new Writable({
        write(chunk, _e, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    logger.info({ req: { headers: { authorization: 'Bearer s3cret', host: 'x' } }, tx: 'c2VjcmV0' }, 'hello');
    await flush();
    expect(lines[0].req.headers).toEqual({ authorization: '[redacted]', host: 'x' });
    expect(lines[0].tx).toBe('[redacted]');
    expect(lines[0].level).toBe('info');
  });

  it("request ids: the client's X-Request-Id when sane, else a fresh one", () => {
    const next = requestIdGenerator();
    const req = (id?: string) => ({ headers: id === undefined ? {} : { 'x-request-id': id } }) as IncomingMessage;
    expect(next(req('trace-42'))).toBe('trace-42');
    const a = next(req());
    const b = next(req('has spaces and "quotes"'));
    expect(a).toMatch(/^[a-z0-9]+-1$/);
    expect(b).toMatch(/^[a-z0-9]+-2$/);
    expect(next(req('x'.repeat(65)))).not.toBe('x'.repeat(65));
  });
});
