/** `[queue]`: its defaults, REDIS_URL as the fallback of redis_url, and its checks. */
import { parseCli } from '../../../src/config/cli';
import { loadConfig } from '../../../src/config/load-config';
import { startWorker } from '../../../src/queue/worker-process';
import { tempHome } from '../config/temp-home';

describe('[queue]', () => {
  it('is in memory by default, with workers in the process', () => {
    expect(loadConfig({ home: tempHome(), env: {} }).gateway.queue).toEqual({
      redis_url: '',
      redis_key_prefix: 'rpcgw:queue',
      workers: true,
      concurrency: 16,
      rate_limit: 0,
      max_attempts: 60,
      retry_backoff: 500,
      max_retry_backoff: 10_000,
      check_timeout: 5_000,
    });
  });

  it('reads REDIS_URL when RPCGW_QUEUE_REDIS_URL is not set, which wins when it is', () => {
    expect(loadConfig({ home: tempHome(), env: { REDIS_URL: 'redis://cache:6379' } }).gateway.queue.redis_url).toBe('redis://cache:6379');
    const both = { REDIS_URL: 'redis://cache:6379', RPCGW_QUEUE_REDIS_URL: 'redis://queue:6379' };
    expect(loadConfig({ home: tempHome(), env: both }).gateway.queue.redis_url).toBe('redis://queue:6379');
    // REDIS_URL is the queue's alone: the response cache keeps its own key.
    expect(loadConfig({ home: tempHome(), env: { REDIS_URL: 'redis://cache:6379' } }).gateway.cache.redis_url).toBe('');
  });

  it('names REDIS_URL when its value is not a Redis URL', () => {
    expect(() => loadConfig({ home: tempHome(), env: { REDIS_URL: 'http://x' } })).toThrow(/REDIS_URL/);
  });

  it('refuses a concurrency of 0 and a prefix with spaces', () => {
    expect(() => loadConfig({ home: tempHome(), env: {}, flags: { 'queue.concurrency': '0' } })).toThrow(/concurrency/);
    expect(() => loadConfig({ home: tempHome(), env: {}, flags: { 'queue.redis_key_prefix': 'a b' } })).toThrow(/redis_key_prefix/);
  });
});

describe('rpc-gateway worker', () => {
  it('takes --home and --set as the other commands do', () => {
    expect(parseCli(['node', 'rpc-gateway', 'worker', '--home', '/srv/gw', '--set', 'queue.concurrency=4'], {})).toEqual({
      command: 'worker',
      home: '/srv/gw',
      flags: { 'queue.concurrency': '4' },
    });
  });

  it('needs a queue on Redis and upstream nodes to deliver to', async () => {
    await expect(startWorker(loadConfig({ home: tempHome(), env: {} }), { logger: false })).rejects.toThrow(
      'rpc-gateway worker: [queue] redis_url (or REDIS_URL) is empty; a worker delivers the jobs of a queue on Redis',
    );
    await expect(startWorker(loadConfig({ home: tempHome(), env: { REDIS_URL: 'redis://127.0.0.1:6379' } }), { logger: false })).rejects.toThrow(
      /^rpc-gateway worker: \[backend\] kind is "embedded"/,
    );
  });
});
