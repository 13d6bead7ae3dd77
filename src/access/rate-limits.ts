import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateRule } from '../config/config.types';
import type { Caller } from '../rpc/call-context';
import { RateLimitedError } from '../rpc/errors';
import type { KeyRecord } from './api-keys';

/** `*` matches any run of characters; everything else itself. */
export function globPattern(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&')).join('.*')}$`);
}

/** A rule with its matcher. */
interface CompiledRule {
  readonly rule: RateRule;
  readonly matches: (method: string) => boolean;
}

function compile(rule: RateRule): CompiledRule {
  const patterns = rule.methods.map(globPattern);
  return { rule, matches: (method) => patterns.some((p) => p.test(method)) };
}

/** Method names whose matching rules are remembered (unknown names beyond it are matched each time). */
const MATCH_CACHE_SIZE = 10_000;

/**
 * The rate limits of `[[access.rate]]` and of API keys' own budgets, counted by rate-limiter-flexible:
 * in Redis when `[access] redis_url` is set (replicas share each budget; while Redis cannot be reached,
 * each replica counts in memory), in memory otherwise. Every call counts once against every rule whose
 * globs match its method: a batch member, a WebSocket message, an unknown method alike.
 */
export class RateLimits {
  private readonly rules: CompiledRule[];
  private readonly matched = new Map<string, CompiledRule[]>();
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly keyRules = new WeakMap<readonly RateRule[], CompiledRule[]>();

  constructor(
    rules: readonly RateRule[],
    private readonly redis: Redis | undefined,
    private readonly prefix: string,
  ) {
    this.rules = rules.map(compile);
  }

  /** Whether any rule exists (otherwise only API keys' own budgets count). */
  get any(): boolean {
    return this.rules.length > 0;
  }

  /**
   * Counts a call of `method` by `caller` (its key's record, if any): undefined when no rule applies,
   * else a promise that rejects with a RateLimitedError naming the first rule over budget.
   */
  consume(method: string, caller: Caller, key: KeyRecord | undefined): Promise<void> | undefined {
    const own = key?.rate;
    const budgets: Array<{ limiter: RateLimiterAbstract; id: string; rule: RateRule }> = [];
    for (const { rule } of this.matching(method)) {
      if (rule.per === 'key' && own !== undefined) continue;
      const id = rule.per === 'key' && key !== undefined ? `key:${key.name}` : `ip:${caller.ip}`;
      budgets.push({ limiter: this.limiter(rule.name, rule), id, rule });
    }
    if (own !== undefined && key !== undefined) {
      for (const { rule, matches } of this.compiledOf(own)) {
        if (matches(method)) budgets.push({ limiter: this.limiter(`key:${key.name}:${rule.name}`, rule), id: `key:${key.name}`, rule });
      }
    }
    if (budgets.length === 0) return undefined;
    return Promise.all(budgets.map((b) => this.take(b.limiter, b.id, b.rule))).then(() => undefined);
  }

  private async take(limiter: RateLimiterAbstract, id: string, rule: RateRule): Promise<void> {
    try {
      await limiter.consume(id);
    } catch (outcome) {
      // A store failure with no fallback lets the call through: a limit must not take the service down.
      if (outcome instanceof RateLimiterRes) throw new RateLimitedError(rule.name, Math.max(1, outcome.msBeforeNext));
    }
  }

  private matching(method: string): CompiledRule[] {
    let rules = this.matched.get(method);
    if (rules === undefined) {
      rules = this.rules.filter((r) => r.matches(method));
      if (this.matched.size < MATCH_CACHE_SIZE) this.matched.set(method, rules);
    }
    return rules;
  }

  private compiledOf(rules: readonly RateRule[]): CompiledRule[] {
    let compiled = this.keyRules.get(rules);
    if (compiled === undefined) this.keyRules.set(rules, (compiled = rules.map(compile)));
    return compiled;
  }

  /** One limiter per budget name (a rule, or a key's own rule), made on first use. */
  private limiter(name: string, rule: RateRule): RateLimiterAbstract {
    // The window is part of the name: a key's rule changed in Redis gets a budget of its own.
    const id = `${name}:${rule.limit}/${rule.window}`;
    let limiter = this.limiters.get(id);
    if (limiter === undefined) {
      const options = { points: rule.limit, duration: rule.window / 1000, keyPrefix: `${this.prefix}rate:${id}` };
      const memory = new RateLimiterMemory(options);
      limiter = this.redis ? new RateLimiterRedis({ ...options, storeClient: this.redis, rejectIfRedisNotReady: true, insuranceLimiter: memory }) : memory;
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
