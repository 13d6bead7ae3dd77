/**
 * CheckTx's view of the accounts with txs in the mempool (the check state of a Cosmos node): the next
 * nonce each sender may use and how much of its balance earlier txs may still spend. It starts over
 * at every commit; the mempool's recheck of the txs left in it builds it up again.
 */
export class PendingAccounts {
  private readonly accounts = new Map<string, { nonce: bigint; spent: bigint }>();

  /** The sender's next nonce, given its nonce in the committed state. */
  nonce(address: string, committedNonce: bigint): bigint {
    return this.accounts.get(address)?.nonce ?? committedNonce;
  }

  spent(address: string): bigint {
    return this.accounts.get(address)?.spent ?? 0n;
  }

  /** Records an admitted tx: its nonce is taken and its cost promised. */
  admit(address: string, nonce: bigint, cost: bigint): void {
    this.accounts.set(address, { nonce: nonce + 1n, spent: this.spent(address) + cost });
  }

  reset(): void {
    this.accounts.clear();
  }
}
