/**
 * Per-IP caps counted for the whole deployment, on the `[access]` Redis. Each place a replica gives is a
 * lease in Redis (a sorted set per cap and address: member = replica:lease, score = expiry), renewed
 * while held and released when let go, so the places of a replica that died come back once its leases
 * expire. Taking a place stays synchronous (callers take it before their first await, so pipelined
 * requests cannot pass a cap): the decision is made at once on this replica's own count plus what it
 * knows of the other replicas' leases, a view kept fresh by Redis pub/sub (every take, release and
 * renewal is announced) and, for a WebSocket upgrade, read from Redis just before the handshake is
 * judged (`refresh`). The lease is then taken in Redis atomically against the cap; when another replica
 * took the last place in the same instant, the place is revoked (`revoke`: the WebSocket is closed).
 * With Redis unreachable, each replica counts its own places alone, as without Redis (one warning per
 * outage), and writes them to Redis once it answers again.
 */
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { IpCaps } from './ip-caps';

/** Takes a lease unless the cap is reached: 1, or 0 at the cap. KEYS[1] set; ARGV member, expiry, now, max, ttl. */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local max = tonumber(ARGV[4])
if max > 0 and redis.call('ZCARD', KEYS[1]) >= max and not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/** How long a place's lease lasts unless renewed (renewed at a third of it); tests shorten it. */
export const IP_CAP_LEASE = { ms: 30_000 };

interface Lease {
  readonly key: string;
  readonly member: string;
}

export class SharedIpCaps {
  private readonly logger = new Logger('IpCaps');
  private readonly local = new IpCaps();
  /** Other replicas' leases by set key: their expiries (epoch ms). */
  private readonly others = new Map<string, number[]>();
  private readonly held = new Set<Lease>();
  /** Places given while Redis could not be reached (or before it was): written once it answers. */
  private readonly unwritten = new Set<Lease>();
  private readonly replica = randomUUID();
  private readonly channel: string;
  private readonly subscriber: Redis;
  private readonly renewal: NodeJS.Timeout;
  private seq = 0;
  private down = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly leaseMs: number,
  ) {
    this.channel = `${prefix}caps`;
    this.subscriber = redis.duplicate({ enableOfflineQueue: true });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, key: string) => void this.read(key));
    void this.subscriber.subscribe(this.channel).catch(() => undefined);
    redis.on('error', (err: Error) => {
      if (this.down) return;
      this.down = true;
      this.logger.warn(`per-IP caps: Redis cannot be reached (${err.message}); each replica counts its own places until it answers`);
    });
    redis.on('ready', () => {
      if (this.down) this.logger.log('per-IP caps: Redis answers again');
      this.down = false;
      void this.writeUnwritten();
    });
    this.renewal = setInterval(() => void this.renew(), Math.max(100, Math.floor(leaseMs / 3)));
    this.renewal.unref();
  }

  /**
   * One of `max` places of `slot` for `ip` (max 0 = no cap): its release, or undefined at the cap as
   * far as this replica knows. `revoke` is called when Redis finds the cap was reached meanwhile.
   */
  take(slot: string, ip: string, max: number, revoke?: () => void): (() => void) | undefined {
    const key = this.keyOf(slot, ip);
    if (max > 0 && this.local.count(slot, ip) + this.othersOf(key) >= max) return undefined;
    const release = this.local.take(slot, ip, max);
    if (release === undefined) return undefined;
    const lease: Lease = { key, member: `${this.replica}:${++this.seq}` };
    let held = true;
    const letGo = () => {
      if (!held) return;
      held = false;
      release();
      this.held.delete(lease);
      this.unwritten.delete(lease);
      if (this.up) void this.redis.zrem(lease.key, lease.member).then(() => this.announce(key)).catch(() => undefined);
    };
    this.held.add(lease);
    if (!this.up) this.unwritten.add(lease);
    else {
      const now = Date.now();
      this.redis
        .eval(ACQUIRE, 1, key, lease.member, now + this.leaseMs, now, max, this.leaseMs * 2)
        .then((taken) => {
          if (Number(taken) === 1) return this.announce(key);
          // Another replica took the last place in the same instant: revoked where it can be; otherwise
          // it stays counted on this replica only (no lease), until it ends.
          this.held.delete(lease);
          if (revoke === undefined) return undefined;
          this.logger.debug(`${slot} of ${ip}: the cap was reached on another replica meanwhile; place revoked`);
          letGo();
          revoke();
          return undefined;
        })
        .catch(() => this.unwritten.add(lease));
    }
    return letGo;
  }

  /** Reads what the deployment holds of `slots` for `ip` (before judging a WebSocket upgrade). */
  async refresh(slots: readonly string[], ip: string): Promise<void> {
    if (!this.up) return;
    await Promise.all(slots.map((slot) => this.read(this.keyOf(slot, ip)))).catch(() => undefined);
  }

  close(): void {
    clearInterval(this.renewal);
    this.subscriber.disconnect();
  }

  private get up(): boolean {
    return this.redis.status === 'ready';
  }

  private keyOf(slot: string, ip: string): string {
    return `${this.prefix}caps:${slot}:${ip}`;
  }

  /** Other replicas' live leases of `key`, as last read. */
  private othersOf(key: string): number {
    const expiries = this.others.get(key);
    if (expiries === undefined) return 0;
    const now = Date.now();
    const live = expiries.filter((at) => at > now);
    if (live.length === 0) this.others.delete(key);
    else if (live.length < expiries.length) this.others.set(key, live);
    return live.length;
  }

  private async read(key: string): Promise<void> {
    if (!this.up) return;
    const entries = await this.redis.zrangebyscore(key, Date.now(), '+inf', 'WITHSCORES').catch(() => undefined);
    if (entries === undefined) return;
    const expiries: number[] = [];
    for (let i = 0; i < entries.length; i += 2) {
      if (!entries[i].startsWith(`${this.replica}:`)) expiries.push(Number(entries[i + 1]));
    }
    if (expiries.length === 0) this.others.delete(key);
    else this.others.set(key, expiries);
  }

  private async announce(key: string): Promise<void> {
    await this.redis.publish(this.channel, key).catch(() => undefined);
  }

  /** Places given while Redis was away count from now on (already given: not judged against the cap). */
  private async writeUnwritten(): Promise<void> {
    const leases = [...this.unwritten];
    this.unwritten.clear();
    const now = Date.now();
    for (const lease of leases) {
      await this.redis.eval(ACQUIRE, 1, lease.key, lease.member, now + this.leaseMs, now, 0, this.leaseMs * 2).catch(() => this.unwritten.add(lease));
      await this.announce(lease.key);
    }
  }

  /** Pushes the expiry of every lease held, and tells the other replicas. */
  private async renew(): Promise<void> {
    if (!this.up || this.held.size === 0) return;
    const expiry = Date.now() + this.leaseMs;
    const keys = new Set<string>();
    const batch = this.redis.multi();
    for (const lease of this.held) {
      batch.zadd(lease.key, expiry, lease.member).pexpire(lease.key, this.leaseMs * 2);
      keys.add(lease.key);
    }
    for (const key of keys) batch.publish(this.channel, key);
    await batch.exec().catch(() => undefined);
  }
}
