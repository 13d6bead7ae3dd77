import { ApplicationError } from '../rpc/errors';
import { Inject, Injectable, Optional, type OnModuleDestroy } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { Redis } from 'ioredis';
import { ConfigError } from '../config/config-error';
import { GatewayConfigService } from '../config/gateway-config.service';
import { MetricsService } from '../metrics/metrics.service';
import type { Caller } from '../rpc/call-context';
import type { CallGate } from '../rpc/engine';
import type { KeyRefusal } from '../rpc/errors';
import type { RpcInterface } from '../rpc/registration';
import { FileKeys, keyHash, RedisKeys, type KeyLookup, type KeyRecord, type KeySource } from './api-keys';
import { addressSet, ClientAddresses, inSet } from './client-address';
import { IpCaps } from './ip-caps';
import { SpentBudgets } from './spent-budgets';
import { IP_CAP_LEASE, SharedIpCaps } from './shared-ip-caps';
import { UpgradeSockets } from './upgrade-sockets';
import { presentedKey } from './key-path';
import { RateLimits } from './rate-limits';

/** Who a request is from, or why it is refused before any call runs. */
export type Admission = { readonly caller: Caller } | { readonly refused: KeyRefusal };

/** The per-IP caps of `[limits]`, by what they count. */
export type IpCapKind = 'ws' | 'subscriptions' | 'filters';

const CAP_KEYS = {
  ws: 'max_ws_connections_per_ip',
  subscriptions: 'max_subscriptions_per_ip',
  filters: 'max_filters_per_ip',
} as const satisfies Record<IpCapKind, string>;

/** The HTTP status of a refusal for a key. */
export function keyRefusalStatus(reason: KeyRefusal): 401 | 503 {
  return reason === 'unavailable' ? 503 : 401;
}

/**
 * Access to both interfaces, as `[access]` and `[limits]` configure it: who a request is from (the
 * client's IP, behind trusted proxies from X-Forwarded-For; its API key where keys are configured), the
 * rate limits every call passes (the engines' gate), and the per-IP caps across connections. With no
 * keys and no rules, every request is admitted as from its peer's address and no call is counted.
 */
@Injectable()
export class AccessService implements OnModuleDestroy {
  private readonly addresses: ClientAddresses;
  private readonly exempt;
  private readonly exemptAny: boolean;
  private readonly sources: KeySource[] = [];
  private readonly redis: Redis | undefined;
  private readonly rates: RateLimits;
  private readonly caps = new IpCaps();
  /** The caps counted for the whole deployment, with `[access] redis_url`. */
  private readonly shared: SharedIpCaps | undefined;
  /** WebSocket upgrades being judged or open, by address: a place revoked closes one. */
  private readonly upgrades = new UpgradeSockets();
  /** What every engine runs first; undefined when nothing is ever counted. */
  readonly gate: CallGate | undefined;
  /** Callers over a rule on every method, refused before their bodies are read. */
  readonly spent = new SpentBudgets();

  constructor(
    private readonly config: GatewayConfigService,
    @Inject(FileKeys) fileKeys: FileKeys | null,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    const access = config.gateway.access;
    this.addresses = new ClientAddresses(access.trusted_proxies);
    this.exempt = addressSet(access.exempt_cidrs);
    this.exemptAny = access.exempt_cidrs.length > 0;
    if (access.keys_redis && access.redis_url === '') {
      throw new ConfigError('config/gateway.toml: [access] keys_redis = true: expected a redis_url to read the keys from');
    }
    if (access.redis_url !== '') {
      this.redis = new Redis(access.redis_url, {
        // Fail at once while disconnected (budgets fall back to memory) instead of queueing.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: 500,
        retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
      });
      this.redis.on('error', () => undefined);
    }
    if (fileKeys) this.sources.push(fileKeys);
    if (access.keys_redis && this.redis) this.sources.push(new RedisKeys(this.redis, access.redis_key_prefix, access.keys_cache_ttl));
    this.rates = new RateLimits(access.rate, this.redis, access.redis_key_prefix);
    if (this.redis) this.shared = new SharedIpCaps(this.redis, access.redis_key_prefix, IP_CAP_LEASE.ms);
    this.gate = this.rates.any || this.keysRequired ? (request, ctx) => this.admitCall(request.method, ctx.caller) : undefined;
  }

  /** Whether every request needs a known API key. */
  get keysRequired(): boolean {
    return this.sources.length > 0;
  }

  /**
   * Who an HTTP request or WebSocket upgrade is from: its client IP and, where keys are configured,
   * its key (`Authorization: Bearer`, `x-api-key`, or the `/key/<k>` of its path, given as `pathKey`).
   * Synchronous unless a key has to be looked up in Redis.
   */
  admit(req: IncomingMessage, pathKey: string | undefined): Admission | Promise<Admission> {
    const ip = this.addresses.ipOf(req);
    const admission = this.identify(req, ip, pathKey);
    if (this.shared === undefined || this.config.gateway.limits.max_ws_connections_per_ip === 0 || req.headers.upgrade === undefined) return admission;
    // A WebSocket upgrade is judged on what the whole deployment holds for its address, read just now.
    this.upgrades.note(ip, req);
    return this.shared.refresh(WS_SLOTS, ip).then(() => admission);
  }

  private identify(req: IncomingMessage, ip: string, pathKey: string | undefined): Admission | Promise<Admission> {
    if (!this.keysRequired) return { caller: { ip } };
    const secret = presentedKey(req.headers, pathKey);
    if (secret === undefined) return { refused: 'missing' };
    const hash = keyHash(secret);
    const found = this.lookup(hash, 0);
    return found instanceof Promise ? found.then((lookup) => admission(ip, lookup)) : admission(ip, found);
  }

  /** Counts a refusal at the door (a key, a per-IP cap) under the interface's refusals. */
  refused(rpc: RpcInterface, reason: KeyRefusal | IpCapKind): void {
    if (reason === 'ws' || reason === 'subscriptions' || reason === 'filters') this.metrics?.refuse(rpc, 'limit', CAP_KEYS[reason]);
    else this.metrics?.refuse(rpc, 'unauthorized');
  }

  /**
   * Takes one of the per-IP places of `kind` on an interface (synchronously, so pipelined requests
   * cannot pass the cap together): its release, or undefined (counted as a refusal) at the cap. With
   * Redis, the place is counted for the whole deployment (SharedIpCaps); a WebSocket whose place
   * another replica took in the same instant is closed.
   */
  takeIpPlace(rpc: RpcInterface, kind: IpCapKind, ip: string): (() => void) | undefined {
    const slot = `${rpc}:${kind}`;
    const max = this.config.gateway.limits[CAP_KEYS[kind]];
    let release: (() => void) | undefined;
    if (this.shared === undefined || max === 0) release = this.caps.take(slot, ip, max);
    else {
      const socket = kind === 'ws' ? this.upgrades.claim(ip) : undefined;
      release = this.shared.take(slot, ip, max, () => {
        this.refused(rpc, kind);
        socket?.destroy();
      });
    }
    if (release === undefined) this.refused(rpc, kind);
    return release;
  }

  /**
   * A per-IP place of `kind` for a call's client: its release (a no-op when the address is unknown), or
   * the cap's error (`max_… N reached`) when the address holds them all.
   */
  placeFor(rpc: RpcInterface, kind: IpCapKind, ip: string | undefined): () => void {
    if (ip === undefined) return NO_PLACE;
    const place = this.takeIpPlace(rpc, kind, ip);
    if (place !== undefined) return place;
    const { key, max } = this.capOf(kind);
    throw new ApplicationError(`${key} ${max} reached`);
  }

  /** The name of the per-IP cap of `kind` (the config key), for error texts. */
  capOf(kind: IpCapKind): { key: string; max: number } {
    const key = CAP_KEYS[kind];
    return { key, max: this.config.gateway.limits[key] };
  }

  async onModuleDestroy(): Promise<void> {
    this.shared?.close();
    this.redis?.disconnect();
  }

  private lookup(hash: string, from: number): KeyLookup | Promise<KeyLookup> {
    for (let i = from; i < this.sources.length; i++) {
      const found = this.sources[i].find(hash);
      if (found instanceof Promise) return found.then((lookup) => (lookup === 'unknown' ? this.lookup(hash, i + 1) : lookup));
      if (found !== 'unknown') return found;
    }
    return 'unknown';
  }

  private admitCall(method: string, caller: Caller | undefined): Promise<void> | undefined {
    if (caller === undefined) return undefined;
    const key = caller.key as KeyRecord | undefined;
    if (key?.exempt === true || (this.exemptAny && inSet(this.exempt, caller.ip))) return undefined;
    return this.rates.consume(method, caller, key);
  }
}

function admission(ip: string, lookup: KeyLookup): Admission {
  return typeof lookup === 'string' ? { refused: lookup } : { caller: { ip, key: lookup } };
}

const NO_PLACE = (): void => undefined;

/** The WebSocket places of both interfaces. */
const WS_SLOTS = ['node:ws', 'evm:ws'] as const;
