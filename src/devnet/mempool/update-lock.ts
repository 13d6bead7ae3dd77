/**
 * CometBFT's mempool update lock: CheckTx runs under a shared hold, and a block's commit with the
 * recheck that follows it under an exclusive one. Without it a tx checked while a block commits is
 * counted in the application's fresh check state and then refused by its own recheck.
 */
export class UpdateLock {
  private holders = 0;
  private exclusiveHeld: Promise<void> | undefined;
  private released: (() => void) | undefined;

  async shared<T>(run: () => Promise<T>): Promise<T> {
    while (this.exclusiveHeld !== undefined) await this.exclusiveHeld;
    this.holders++;
    try {
      return await run();
    } finally {
      if (--this.holders === 0) this.released?.();
    }
  }

  async exclusive<T>(run: () => Promise<T>): Promise<T> {
    while (this.exclusiveHeld !== undefined) await this.exclusiveHeld;
    let done!: () => void;
    this.exclusiveHeld = new Promise((resolve) => (done = resolve));
    try {
      if (this.holders > 0) await new Promise<void>((resolve) => (this.released = resolve));
      this.released = undefined;
      return await run();
    } finally {
      this.exclusiveHeld = undefined;
      done();
    }
  }
}
