/**
 * A follower's mempool admission: every tx goes to the leader's broadcast_tx_sync, whose CheckTx
 * result (or refusal, in CometBFT's words) is the answer. The follower's own mempool stays empty.
 */
import type { CheckTxResult } from '../app/application';
import { txResult } from '../app/results';
import { DevnetError } from '../devnet-error';
import type { JsonObject } from '../json';
import { MempoolError } from '../mempool/mempool';
import type { TxIntake } from '../mempool/tx-intake';
import { LeaderAnswerError, type LeaderConnection } from './leader-connection';

export class LeaderIntake implements TxIntake {
  constructor(private readonly leader: LeaderConnection) {}

  async add(tx: Uint8Array): Promise<CheckTxResult> {
    let answer: JsonObject;
    try {
      answer = await this.leader.call('broadcast_tx_sync', { tx: Buffer.from(tx).toString('base64') });
    } catch (err) {
      if (err instanceof LeaderAnswerError && err.detail !== '') throw new MempoolError(err.detail);
      throw new DevnetError(`the leader did not take the tx: ${(err as Error).message}`);
    }
    const { code, data, log, codespace } = answer as { code?: number; data?: string; log?: string; codespace?: string };
    return txResult({
      code: code ?? 0,
      data: new Uint8Array(Buffer.from(data ?? '', 'hex')),
      log: log ?? '',
      codespace: codespace ?? '',
    });
  }
}
