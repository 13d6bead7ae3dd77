/**
 * The Redis tier of the response cache, shared by gateway replicas: immutable answers kept as their
 * wire bytes for `redis_ttl`, on one connection that both pools of a gateway use. Redis never fails nor
 * holds up a client request: a command waits at most `redis_timeout`, a failed one is a miss, writes are
 * never awaited, and after a failure Redis is left alone (every lookup a miss at once) until a ping, once
 * a second, or a new connection succeeds. An outage is logged once when it starts and once when it ends.
 */
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { GatewayOwnConfig } from '../../config/config.types';
import type { CallResult } from './exchange';
import { resultJson, unreadBytes, UnreadJson, type WireResult } from '../../rpc/result-json';
import { redactUrl } from './redact-url';

export type CacheConfig = GatewayOwnConfig['cache'];

const PROBE_INTERVAL = 1_000;

export class RedisCache {
  /** Times Redis went down. */
  outages = 0;
  private readonly redis: Redis;
  /** Until the first connection is ready, commands are skipped without an alarm. */
  private state: 'connecting' | 'up' | 'down' | 'closed' = 'connecting';
  private probe: NodeJS.Timeout | undefined;
  /** The URL as logs show it (it may hold a password). */
  private readonly where: string;

  constructor(
    private readonly config: CacheConfig,
    private readonly logger = new Logger('ResponseCache'),
  ) {
    this.where = redactUrl(config.redis_url);
    this.redis = new Redis(config.redis_url, {
      commandTimeout: config.redis_timeout,
      // Fail at once while disconnected instead of queueing; ready as soon as connected.
      enableOfflineQueue: false,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    });
    this.redis.on('error', (err: Error) => this.down(err));
    this.redis.on('ready', () => this.back());
  }

  /** Redis answers now. */
  get up(): boolean {
    return this.state === 'up';
  }

  /**
   * The answer kept under `key`, unread as an upstream's answer is (a large one stays the bytes Redis
   * sent, never decoded); null when there is none; undefined when Redis did not answer.
   */
  async get(key: string): Promise<CallResult | null | undefined> {
    const found = await this.command(() => this.redis.getBuffer(this.config.redis_key_prefix + key));
    if (found === undefined) return undefined;
    if (found.value === null || found.value.length === 0) return null;
    const result = UnreadJson.ofWire(found.value);
    return { result, bytes: result.size };
  }

  /** Writes `result` under `key` (a large unread one as its bytes); whether Redis took it (no caller waits for this). */
  async set(key: string, result: WireResult): Promise<boolean> {
    const bytes = unreadBytes(result);
    const value = bytes === undefined ? resultJson(result) : Buffer.concat(bytes);
    const fullKey = this.config.redis_key_prefix + key;
    const ttl = this.config.redis_ttl;
    const done = await this.command(() => (ttl > 0 ? this.redis.set(fullKey, value, 'PX', ttl) : this.redis.set(fullKey, value)));
    return done !== undefined;
  }

  async close(): Promise<void> {
    const wasReady = this.redis.status === 'ready';
    this.state = 'closed';
    clearInterval(this.probe);
    if (wasReady) await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }

  /** Runs `send` when Redis is up; undefined when it is not or the command fails. */
  private async command<T>(send: () => Promise<T>): Promise<{ readonly value: T } | undefined> {
    if (this.state !== 'up') return undefined;
    try {
      return { value: await send() };
    } catch (err) {
      this.down(err as Error);
      return undefined;
    }
  }

  private down(err: Error): void {
    if (this.state === 'down' || this.state === 'closed') return;
    this.state = 'down';
    this.outages++;
    this.logger.warn(`Redis cache at ${this.where} unavailable (${err.message}); answers come from memory and the upstreams until it is back`);
    this.probe = setInterval(() => {
      this.redis.ping().then(
        () => this.back(),
        () => undefined,
      );
    }, PROBE_INTERVAL);
    this.probe.unref();
  }

  private back(): void {
    if (this.state === 'up' || this.state === 'closed') return;
    if (this.state === 'down') this.logger.log(`Redis cache at ${this.where} is back`);
    clearInterval(this.probe);
    this.state = 'up';
  }
}

export interface RedisTierStats {
  /** Redis answers now (the connection's state, shared by the gateway's pools). */
  up: boolean;
  /** Outages of the connection so far (shared by the gateway's pools). */
  outages: number;
  /** This pool's lookups and writes that Redis did not serve: failed, timed out, or Redis down. */
  errors: number;
  /** This pool's answers written. */
  writes: number;
}

/** One pool's use of the shared Redis, counted apart from the other pool's. */
export class RedisCacheTier {
  hits = 0;
  misses = 0;
  private errors = 0;
  private writes = 0;

  constructor(private readonly redis: RedisCache) {}

  async get(key: string): Promise<CallResult | undefined> {
    const found = await this.redis.get(key);
    if (found === undefined) this.errors++;
    if (found == null) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    return found;
  }

  /** Writes in the background. */
  set(key: string, result: WireResult): void {
    void this.redis.set(key, result).then((written) => (written ? this.writes++ : this.errors++));
  }

  stats(): RedisTierStats {
    return { up: this.redis.up, outages: this.redis.outages, errors: this.errors, writes: this.writes };
  }
}
