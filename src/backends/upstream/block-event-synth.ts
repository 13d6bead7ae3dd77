/**
 * Rebuilds the events a committed block published (NewBlock, NewBlockHeader, NewBlockEvents, Tx, in
 * CometBFT's order) from its `block` and `block_results` answers, to fill a gap left while an
 * upstream socket was being replaced. ValidatorSetUpdates is left out (see docs/upstream.md).
 */
import { createHash } from 'node:crypto';
import type { BusEvent } from '../../events';
import type { Json, JsonObject } from '../../rpc/json';

interface AbciEventJson {
  type?: string;
  attributes?: { key?: string; value?: string }[] | null;
}

export function synthesizeBlockEvents(blockAnswer: JsonObject, results: JsonObject): BusEvent[] {
  const block = blockAnswer.block as JsonObject;
  const header = block.header as JsonObject;
  const height = String(header.height);
  const txs = ((block.data as JsonObject | undefined)?.txs as string[] | null | undefined) ?? [];
  const blockEvents = (results.finalize_block_events as AbciEventJson[] | null) ?? [];
  const txResults = (results.txs_results as JsonObject[] | null) ?? [];

  const finalize: JsonObject = {};
  if (blockEvents.length > 0) finalize.events = blockEvents as Json;
  if (txResults.length > 0) finalize.tx_results = txResults;
  finalize.validator_updates = (results.validator_updates as Json[] | null) ?? [];
  if (results.consensus_param_updates) finalize.consensus_param_updates = results.consensus_param_updates;
  if (results.app_hash) finalize.app_hash = results.app_hash;

  const events: BusEvent[] = [
    busEvent('NewBlock', { block, block_id: blockAnswer.block_id, result_finalize_block: finalize }, blockEvents),
    busEvent('NewBlockHeader', { header }),
    busEvent('NewBlockEvents', { height, events: blockEvents.length === 0 ? null : (blockEvents as Json), num_txs: String(txs.length) }, blockEvents),
  ];
  txs.forEach((tx, index) => {
    const result = txResults[index] ?? {};
    const txResult: JsonObject = index === 0 ? { height } : { height, index };
    txResult.tx = tx;
    txResult.result = result;
    const hash = createHash('sha256').update(Buffer.from(tx, 'base64')).digest('hex').toUpperCase();
    events.push(busEvent('Tx', { TxResult: txResult }, (result.events as AbciEventJson[] | null) ?? [], { 'tx.hash': hash, 'tx.height': height }));
  });
  return events;
}

function busEvent(type: string, value: JsonObject, abciEvents: AbciEventJson[] = [], reserved: Record<string, string> = {}): BusEvent {
  const map: Record<string, string[]> = {};
  const add = (key: string, v: string) => (map[key] ??= []).push(v);
  for (const e of abciEvents) {
    if (!e.type) continue;
    for (const a of e.attributes ?? []) if (a.key) add(`${e.type}.${a.key}`, a.value ?? '');
  }
  add('tm.event', type);
  for (const [k, v] of Object.entries(reserved)) add(k, v);
  return { type, data: { type: `tendermint/event/${type}`, value }, events: map };
}

/**
 * A NewBlock that carries only the block height: what the EVM feed reads, published when the EVM pool
 * sees a block and no node upstream can give the real event (see WsMultiplexer.publishBlock).
 */
export function heightOnlyNewBlock(height: bigint): BusEvent {
  return busEvent('NewBlock', { block: { header: { height: height.toString() } } });
}

/** The block height an event belongs to, when it has one. */
export function eventHeight(type: string, data: unknown): bigint | undefined {
  const value = (data as { value?: Record<string, any> } | undefined)?.value;
  if (!value) return undefined;
  let h: unknown;
  if (type === 'NewBlock') h = value.block?.header?.height;
  else if (type === 'NewBlockHeader') h = value.header?.height;
  else if (type === 'NewBlockEvents') h = value.height;
  else if (type === 'Tx') h = value.TxResult?.height;
  try {
    return h === undefined ? undefined : BigInt(String(h));
  } catch {
    return undefined;
  }
}

/** What makes two copies of an event (from two upstream subscriptions or a backfill) the same one. */
export function eventIdentity(event: BusEvent): string {
  const height = eventHeight(event.type, event.data);
  if (event.type === 'Tx') return `Tx:${height}:${event.events['tx.hash']?.[0] ?? ''}`;
  if (height !== undefined) return `${event.type}:${height}`;
  return `${event.type}:${createHash('sha1').update(JSON.stringify(event.data)).digest('base64')}`;
}
