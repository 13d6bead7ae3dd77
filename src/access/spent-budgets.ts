import type { Caller } from '../rpc/call-context';

/** Callers remembered at once; past it (after expired ones are dropped) no more are noted. */
const MAX_CALLERS = 10_000;

/**
 * Callers known to be over a rate rule that counts every method (a body that did not parse found it:
 * its empty method name matches only such rules), until the rule's budget comes back. A transport
 * refuses their requests before reading or parsing a body, so that junk past the budget costs next to
 * nothing. Per replica; the budget itself stays in the rate limiter.
 */
export class SpentBudgets {
  private readonly until = new Map<string, { readonly at: number; readonly limit: string }>();

  note(caller: Caller, limit: string, retryAfterMs: number): void {
    const now = Date.now();
    if (this.until.size >= MAX_CALLERS) for (const [id, spent] of this.until) if (spent.at <= now) this.until.delete(id);
    if (this.until.size < MAX_CALLERS) this.until.set(idOf(caller), { at: now + retryAfterMs, limit });
  }

  /** The rule `caller` is over and how long until it has budget again; undefined when not known to be over. */
  of(caller: Caller): { readonly limit: string; readonly retryAfterMs: number } | undefined {
    const id = idOf(caller);
    const spent = this.until.get(id);
    if (spent === undefined) return undefined;
    const left = spent.at - Date.now();
    if (left > 0) return { limit: spent.limit, retryAfterMs: left };
    this.until.delete(id);
    return undefined;
  }
}

function idOf(caller: Caller): string {
  return `${caller.ip}\0${caller.key?.name ?? ''}`;
}
