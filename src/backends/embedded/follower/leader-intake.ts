/**
 * A follower's mempool admission: every tx goes to the leader's broadcast_tx_sync, whose CheckTx
 * result (or refusal, in CometBFT's words) is the answer. The follower's own mempool stays empty.
 */
import { ApplicationError } from '../../../rpc/errors';
import type { JsonObject } from '../../node-backend';
import type { CheckTxResult } from '../app/application';
import { txResult } from '../app/results';
import { MempoolError } from '../mempool/mempool';
import type { TxIntake } from '../mempool/tx-intake';
import { UpstreamAnswerError } from '../../upstream/node-client';
import type { LeaderClient } from './leader-client';

export class LeaderIntake implements TxIntake {
  constructor(private readonly leader: LeaderClient) {}

  async add(tx: Uint8Array): Promise<CheckTxResult> {
    let answer: JsonObject;
    try {
      answer = await this.leader.call('broadcast_tx_sync', { tx: Buffer.from(tx).toString('base64') });
    } catch (err) {
      if (err instanceof UpstreamAnswerError && err.detail !== '') throw new MempoolError(err.detail);
      throw new ApplicationError(`the leader did not take the tx: ${(err as Error).message}`);
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
