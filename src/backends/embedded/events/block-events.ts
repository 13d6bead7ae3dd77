/**
 * The events a committed block publishes, in CometBFT's order (state/execution.go fireEvents) and
 * with the composite-key maps of types/event_bus.go.
 */
import type { BusEvent } from '../../../events';
import type { FinalizeBlockResult } from '../../../devnet/app/application';
import { addressOf } from '../../../devnet/chain/keys';
import type { AbciEvent, Block, BlockId } from '../../../devnet/chain/types';
import { blockIdJson, blockJson, headerJson, hexJson, validatorJson } from '../../../devnet/chain/wire';
import { eventJson, finalizeBlockJson, txResultJson } from '../wire/abci-json';
import { txHash } from '../../../devnet/chain/hashing';
import type { Json, JsonObject } from '../../../rpc/json';
import { asJson } from '../../../devnet/json';

export function blockEvents(block: Block, blockId: BlockId, results: FinalizeBlockResult): BusEvent[] {
  const height = block.header.height.toString();
  const events: BusEvent[] = [
    busEvent('NewBlock', { block: asJson(blockJson(block)), block_id: asJson(blockIdJson(blockId)), result_finalize_block: finalizeBlockJson(results) }, results.events),
    busEvent('NewBlockHeader', { header: asJson(headerJson(block.header)) }),
    busEvent(
      'NewBlockEvents',
      { height, events: results.events.length === 0 ? null : results.events.map(eventJson), num_txs: block.txs.length.toString() },
      results.events,
    ),
  ];
  block.txs.forEach((tx, index) => {
    const result = results.txResults[index];
    // abci.TxResult: index is left out when 0.
    const txResult: JsonObject = index === 0 ? { height } : { height, index };
    txResult.tx = Buffer.from(tx).toString('base64');
    txResult.result = txResultJson(result);
    events.push(busEvent('Tx', { TxResult: txResult }, result.events, { 'tx.hash': hexJson(txHash(tx)), 'tx.height': height }));
  });
  if (results.validatorUpdates.length > 0) {
    const validatorUpdates = results.validatorUpdates.map((u) =>
      asJson(validatorJson({ address: addressOf(u.pubKey), pubKey: u.pubKey, votingPower: u.power, proposerPriority: 0n })),
    );
    events.push(busEvent('ValidatorSetUpdates', { validator_updates: validatorUpdates }));
  }
  return events;
}

/**
 * The events map is validateAndStringifyEvents (every attribute, indexed or not, under `type.key`)
 * with tm.event and the event's reserved keys appended.
 */
function busEvent(type: string, value: JsonObject, abciEvents: AbciEvent[] = [], reserved: Record<string, string> = {}): BusEvent {
  const map: Record<string, string[]> = {};
  const add = (key: string, v: string): void => {
    (map[key] ??= []).push(v);
  };
  for (const event of abciEvents) {
    if (event.type === '') continue;
    for (const attribute of event.attributes) if (attribute.key !== '') add(`${event.type}.${attribute.key}`, attribute.value);
  }
  add('tm.event', type);
  for (const [key, v] of Object.entries(reserved)) add(key, v);
  return { type, data: { type: `tendermint/event/${type}`, value } satisfies Json, events: map };
}
