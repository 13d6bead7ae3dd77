/**
 * Per-IP caps across connections (WebSockets, subscriptions, filters): counters taken and released
 * synchronously, so that requests pipelined on many connections can never pass a cap together.
 * Counts are this replica's.
 */
export class IpCaps {
  private readonly held = new Map<string, number>();

  /**
   * Takes one of `max` places of `kind` for `ip` (max 0 = no cap): the release (idempotent), or
   * undefined when the address holds them all.
   */
  take(kind: string, ip: string, max: number): (() => void) | undefined {
    const slot = `${kind}\0${ip}`;
    const count = this.held.get(slot) ?? 0;
    if (max > 0 && count >= max) return undefined;
    this.held.set(slot, count + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (this.held.get(slot) ?? 1) - 1;
      if (left <= 0) this.held.delete(slot);
      else this.held.set(slot, left);
    };
  }

  /** Places of `kind` held by `ip`. */
  count(kind: string, ip: string): number {
    return this.held.get(`${kind}\0${ip}`) ?? 0;
  }
}
