/**
 * The ABCI events of an executed Ethereum transaction, as Evmos's x/evm emits them: `ethereum_tx`
 * (value, hashes, EVM tx index, gas used, recipient, failure), `tx_log` with one `txLog` attribute per
 * log (the log as JSON, data in base64 as Go marshals bytes; the event is there, empty, when the tx has
 * no logs, so that the Nth tx_log belongs to the Nth ethereum_tx), and `message` (module, sender, tx
 * type). Every attribute is indexed, as the Cosmos SDK marks them.
 */
import type { AbciEvent } from '../../chain/types';
import { hexData, toChecksumAddress } from './hex';
import type { EvmTxRecord } from '../../evm-state/evm-chain-store';

export interface TxEventContext {
  height: bigint;
  blockHash: Uint8Array;
  /** EVM transaction index in the block. */
  index: number;
  /** Block-wide index of the tx's first log. */
  firstLogIndex: number;
  /** CometBFT's hash of the tx bytes. */
  nodeTxHash: Uint8Array;
  value: bigint;
}

const attribute = (key: string, value: string) => ({ key, value, index: true });

export function ethereumTxEvents(record: EvmTxRecord, ctx: TxEventContext): AbciEvent[] {
  const ethereumTx: AbciEvent = {
    type: 'ethereum_tx',
    attributes: [
      attribute('amount', ctx.value.toString()),
      attribute('ethereumTxHash', hexData(record.hash)),
      attribute('txIndex', ctx.index.toString()),
      attribute('txGasUsed', record.gasUsed.toString()),
      attribute('txHash', Buffer.from(ctx.nodeTxHash).toString('hex').toUpperCase()),
      ...(record.to !== undefined ? [attribute('recipient', toChecksumAddress(record.to))] : []),
      ...(record.vmError !== undefined ? [attribute('ethereumTxFailed', record.vmError)] : []),
    ],
  };
  const txLog: AbciEvent = {
    type: 'tx_log',
    attributes: record.logs.map((log, i) => attribute('txLog', JSON.stringify(logJson(log, record, ctx, ctx.firstLogIndex + i)))),
  };
  const message: AbciEvent = {
    type: 'message',
    attributes: [attribute('module', 'evm'), attribute('sender', toChecksumAddress(record.from)), attribute('txType', String(record.type))],
  };
  return [ethereumTx, txLog, message];
}

/** Evmos's types.Log as Go's encoding/json writes it (zero values omitted). */
function logJson(log: EvmTxRecord['logs'][number], record: EvmTxRecord, ctx: TxEventContext, logIndex: number): Record<string, unknown> {
  const json: Record<string, unknown> = { address: toChecksumAddress(log.address) };
  if (log.topics.length > 0) json.topics = log.topics.map(hexData);
  if (log.data.length > 0) json.data = Buffer.from(log.data).toString('base64');
  if (ctx.height !== 0n) json.blockNumber = Number(ctx.height);
  json.transactionHash = hexData(record.hash);
  if (ctx.index !== 0) json.transactionIndex = ctx.index;
  json.blockHash = hexData(ctx.blockHash);
  if (logIndex !== 0) json.logIndex = logIndex;
  return json;
}
