/** The pure parts of access control: key paths and headers, client addresses, globs, per-IP caps, rules. */
import type { IncomingMessage } from 'node:http';
import { ClientAddresses, normalizeIp } from '../../../src/access/client-address';
import { IpCaps } from '../../../src/access/ip-caps';
import { presentedKey, splitKeyPath } from '../../../src/access/key-path';
import { globPattern, RateLimits } from '../../../src/access/rate-limits';
import { ConfigError } from '../../../src/config/config-error';
import { isCidr } from '../../../src/config/config-validators';
import { parseRateRules } from '../../../src/config/rate-rules';
import { RateLimitedError } from '../../../src/rpc/errors';

const request = (peer: string, forwardedFor?: string): IncomingMessage =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('key in the path', () => {
  it.each([
    ['/key/abc/status?x=1', 'abc', '/status?x=1'],
    ['/key/abc', 'abc', '/'],
    ['/key/abc/', 'abc', '/'],
    ['/key/abc?x=1', 'abc', '/?x=1'],
    ['/key/a%2Fb/websocket', 'a/b', '/websocket'],
    ['/key/%E0%A4%A/status', '%E0%A4%A', '/status'],
    ['/status', undefined, '/status'],
    ['/keys/abc', undefined, '/keys/abc'],
  ])('%s', (url, key, rest) => {
    expect(splitKeyPath(url)).toEqual(key === undefined ? { url: rest } : { key, url: rest });
  });

  it('Bearer first, then x-api-key, then the path', () => {
    expect(presentedKey({ authorization: 'Bearer k1', 'x-api-key': 'k2' }, 'k3')).toBe('k1');
    expect(presentedKey({ authorization: 'bearer   k1 ' }, undefined)).toBe('k1');
    expect(presentedKey({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'k2' }, 'k3')).toBe('k2');
    expect(presentedKey({}, 'k3')).toBe('k3');
    expect(presentedKey({ 'x-api-key': '  ' }, '')).toBeUndefined();
  });
});

describe('client address', () => {
  it('is the peer without trusted proxies, whatever X-Forwarded-For says', () => {
    expect(new ClientAddresses([]).ipOf(request('::ffff:10.1.2.3', '1.1.1.1'))).toBe('10.1.2.3');
  });

  it('behind trusted proxies: the right-most untrusted hop', () => {
    const addresses = new ClientAddresses(['10.0.0.0/8', '::1']);
    expect(addresses.ipOf(request('10.0.0.5', '203.0.113.9'))).toBe('203.0.113.9');
    expect(addresses.ipOf(request('10.0.0.5', '198.51.100.1, 203.0.113.9, 10.0.0.7'))).toBe('203.0.113.9');
    expect(addresses.ipOf(request('::1', '2001:db8::1'))).toBe('2001:db8::1');
    // Only proxies in the header: the left-most of them.
    expect(addresses.ipOf(request('10.0.0.5', '10.0.0.9'))).toBe('10.0.0.9');
    // No header, or garbage in it: the last address known to be real.
    expect(addresses.ipOf(request('10.0.0.5'))).toBe('10.0.0.5');
    expect(addresses.ipOf(request('10.0.0.5', 'not-an-ip'))).toBe('10.0.0.5');
    // A peer that is not a trusted proxy is the client.
    expect(addresses.ipOf(request('192.0.2.1', '203.0.113.9'))).toBe('192.0.2.1');
  });

  it('normalizes IPv4-mapped IPv6', () => {
    expect(normalizeIp('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeIp('::1')).toBe('::1');
  });

  it('CIDR syntax', () => {
    for (const ok of ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8', '0.0.0.0/0']) expect(isCidr(ok)).toBe(true);
    for (const bad of ['10.0.0.0/33', '::1/129', 'localhost', '10.0.0/8', '1.2.3.4/x', '']) expect(isCidr(bad)).toBe(false);
  });
});

describe('method globs', () => {
  it.each([
    ['eth_getLogs', 'eth_getLogs', true],
    ['eth_getLogs', 'eth_getLogsX', false],
    ['debug_*', 'debug_traceTransaction', true],
    ['debug_*', 'eth_call', false],
    ['*', 'anything.at-all', true],
    ['broadcast_*', 'broadcast_tx_commit', true],
    ['eth_get*By*', 'eth_getBlockByNumber', true],
    ['a.b', 'axb', false],
  ])('%s ~ %s: %s', (glob, method, matches) => {
    expect(globPattern(glob).test(method)).toBe(matches);
  });
});

describe('per-IP caps', () => {
  it('takes up to max places per address, gives them back once each', () => {
    const caps = new IpCaps();
    const a = caps.take('ws', '1.1.1.1', 2);
    const b = caps.take('ws', '1.1.1.1', 2);
    expect(a && b).toBeDefined();
    expect(caps.take('ws', '1.1.1.1', 2)).toBeUndefined();
    expect(caps.take('ws', '2.2.2.2', 2)).toBeDefined();
    expect(caps.take('filters', '1.1.1.1', 2)).toBeDefined();
    a!();
    a!();
    expect(caps.count('ws', '1.1.1.1')).toBe(1);
    expect(caps.take('ws', '1.1.1.1', 2)).toBeDefined();
    expect(caps.take('ws', '1.1.1.1', 0)).toBeDefined();
  });
});

describe('rate limits in memory', () => {
  const rules = parseRateRules({
    access: {
      rate: [
        { name: 'logs', methods: ['eth_getLogs'], limit: 2, window: '10s' },
        { name: 'all-per-key', methods: '*', per: 'key', limit: 3, window: '10s' },
      ],
    },
  });

  it('counts each call against every matching rule, per IP or per key', async () => {
    const limits = new RateLimits(rules, undefined, 't:');
    const caller = { ip: '1.1.1.1' };
    expect(limits.consume('net_version', { ip: '9.9.9.9' }, undefined)).toBeDefined();
    await limits.consume('eth_getLogs', caller, undefined);
    await limits.consume('eth_getLogs', caller, undefined);
    // The per-key rule counts a caller without a key by its address: its 3 are used up as well.
    const third = limits.consume('eth_getLogs', caller, undefined);
    await expect(third).rejects.toBeInstanceOf(RateLimitedError);
    await expect(third).rejects.toMatchObject({ limit: 'logs' });
    const key = { name: 'k', groups: new Set<string>(), unsafe: false, exempt: false };
    await limits.consume('net_version', { ip: '1.1.1.1', key }, key);
    // A key's own rules replace the per-key rules for it.
    const own = { ...key, name: 'own', rate: [{ name: 'own', methods: ['*'], per: 'key' as const, limit: 1, window: 10_000 }] };
    await limits.consume('net_version', { ip: '5.5.5.5', key: own }, own);
    await expect(limits.consume('net_version', { ip: '5.5.5.5', key: own }, own)).rejects.toMatchObject({ limit: 'own' });
  });

  it('no rule matching: nothing to wait for', () => {
    const limits = new RateLimits(parseRateRules({ access: { rate: [{ name: 'x', methods: ['debug_*'], limit: 1, window: '1s' }] } }), undefined, 't:');
    expect(limits.consume('eth_call', { ip: '1.1.1.1' }, undefined)).toBeUndefined();
  });

  it('rules are validated with one line each', () => {
    const bad = (rule: Record<string, unknown>) => () => parseRateRules({ access: { rate: [rule] } });
    expect(bad({ name: 'a', methods: [], limit: 1, window: '1s' })).toThrow(ConfigError);
    expect(bad({ name: 'a', methods: ['eth_(x)'], limit: 1, window: '1s' })).toThrow(/methods = \["eth_\(x\)"\]: expected a method name or glob/);
    expect(bad({ name: 'a', methods: ['*'], limit: 1, window: '1s', burst: 2 })).toThrow(/burst = 2: unknown key/);
    expect(bad({ methods: ['*'], limit: 1, window: '1s' })).toThrow(/name = \(missing\)/);
    expect(() => parseRateRules({ access: { rate: 'x' } })).toThrow(/expected an array of tables \[\[access.rate\]\]/);
    expect(parseRateRules({})).toEqual([]);
  });
});
