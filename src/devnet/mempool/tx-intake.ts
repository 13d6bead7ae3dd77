import type { CheckTxResult } from '../app/application';

/** Where a tx sent to this node is admitted: its own mempool, or a follower's leader. */
export interface TxIntake {
  /** Throws MempoolError when an admission check refuses the tx, else resolves with its CheckTx result. */
  add(tx: Uint8Array): Promise<CheckTxResult>;
}
