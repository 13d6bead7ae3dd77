/** What one connection holds of the budget. */
export interface UnfinishedHold {
  /** What the connection holds now, in bytes; false when that puts its address or everyone over budget. */
  set(bytes: number): boolean;
  /** Gives back all it holds (idempotent): the connection ended, or finished its message. */
  release(): void;
}

/**
 * Memory held for input that is not yet a request: partial HTTP headers and unfinished WebSocket
 * messages, per client address and in total (0 = no budget). A connection that puts a budget over is
 * closed by its transport, which gives back what it held.
 */
export class UnfinishedBytes {
  private readonly byIp = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly maxPerIp: number,
    private readonly max: number,
  ) {}

  /** Bytes held by every connection. */
  get held(): number {
    return this.total;
  }

  /** Bytes held by the connections of `ip`. */
  heldBy(ip: string): number {
    return this.byIp.get(ip) ?? 0;
  }

  /** A connection of `ip`, holding nothing yet. */
  hold(ip: string): UnfinishedHold {
    let mine = 0;
    const set = (bytes: number): boolean => {
      const ipHeld = this.heldBy(ip) + bytes - mine;
      const total = this.total + bytes - mine;
      // Refused, it keeps what it held until its transport closes it: the budget is never over.
      if (bytes > mine && ((this.maxPerIp > 0 && ipHeld > this.maxPerIp) || (this.max > 0 && total > this.max))) return false;
      this.total = total;
      mine = bytes;
      if (ipHeld > 0) this.byIp.set(ip, ipHeld);
      else this.byIp.delete(ip);
      return true;
    };
    return { set, release: () => void set(0) };
  }
}
