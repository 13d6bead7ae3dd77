import { Logger, type LoggerService } from '@nestjs/common';
import { NODE_PROTOCOL } from '../../../src/backends/upstream/node-protocol';
import { redactUrl } from '../../../src/backends/upstream/redact-url';
import { UPSTREAM_DEFAULTS } from '../../../src/config/upstream-config';
import { UpstreamPool } from '../../../src/backends/upstream/upstream-pool';

describe('redactUrl', () => {
  it.each([
    ['https://user:pass@rpc.example.com/v2/0123456789abcdef?apikey=s3cret#x', 'https://rpc.example.com'],
    ['http://10.0.0.1:26657', 'http://10.0.0.1:26657'],
    ['https://rpc.example.com:443/key', 'https://rpc.example.com'],
    ['https://RPC.Example.com:8443/', 'https://rpc.example.com:8443'],
    ['http://[::1]:8545/?token=t', 'http://[::1]:8545'],
    ['wss://token@ws.example.com/ws/v3/abc', 'wss://ws.example.com'],
    ['not a url, key=abc', '(invalid URL)'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});

describe('an upstream pool', () => {
  const lines: string[] = [];
  const capture: LoggerService = {
    log: (message: string) => lines.push(message),
    warn: (message: string) => lines.push(message),
    error: (message: string) => lines.push(message),
  };
  beforeAll(() => Logger.overrideLogger(capture));
  afterAll(() => Logger.overrideLogger(false));

  it('logs and describes an upstream by its name and scheme://host:port only', async () => {
    const url = 'http://user:pass@127.0.0.1:1/v2/0123456789abcdef?apikey=s3cret';
    const pool = new UpstreamPool([{ name: 'paid', url, weight: 1 }], UPSTREAM_DEFAULTS, { maxBytes: 0 }, NODE_PROTOCOL);
    try {
      await pool.start();
      await pool.reload([{ name: 'paid', url, weight: 2 }]);
    } finally {
      pool.stop();
    }
    expect(lines.some((line) => line.startsWith('upstream paid (http://127.0.0.1:1) is down: unreachable'))).toBe(true);
    expect(pool.stats().upstreams.map((u) => u.url)).toEqual(['http://127.0.0.1:1']);
    for (const text of [...lines, JSON.stringify(pool.stats())]) expect(text).not.toMatch(/user|pass|0123456789abcdef|apikey|s3cret/);
  });
});
