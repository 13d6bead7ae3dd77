import type { ExecTxResult } from '../chain/types';

/** An ExecTxResult (or CheckTx result) with ABCI's zero values for every field not given. */
export function txResult(fields: Partial<ExecTxResult> = {}): ExecTxResult {
  return {
    code: 0,
    data: new Uint8Array(0),
    log: '',
    info: '',
    gasWanted: 0n,
    gasUsed: 0n,
    events: [],
    codespace: '',
    ...fields,
  };
}
