import type { BusEvent, EventBus } from '../events';
import { parseQuery } from '../events/query';

/** The bus subscriber name of the console's block lines. */
export const BLOCK_LINES_SUBSCRIBER = 'rpcgw-console';

const NEW_BLOCK = parseQuery("tm.event = 'NewBlock'");

interface NewBlockValue {
  readonly block?: { readonly header?: { readonly height?: string }; readonly data?: { readonly txs?: readonly unknown[] | null } };
  readonly block_id?: { readonly hash?: string };
  readonly result_finalize_block?: { readonly tx_results?: ReadonlyArray<{ readonly gas_used?: string; readonly code?: number }> | null };
}

/**
 * One readable line for a NewBlock event: `block 12 · 2 txs (1 failed) · gas 42000 · 0x4f3a9c21…`; the
 * hash is the block's, which is also the EVM block hash. Undefined for an event without a height.
 */
export function blockLine(event: BusEvent): string | undefined {
  const value = (event.data as { value?: NewBlockValue } | undefined)?.value;
  const height = value?.block?.header?.height;
  if (height === undefined) return undefined;
  const parts = [`block ${height}`];
  const txs = value?.block?.data?.txs?.length ?? 0;
  const results = value?.result_finalize_block?.tx_results ?? [];
  const failed = results.filter((r) => (r.code ?? 0) !== 0).length;
  parts.push(`${txs} ${txs === 1 ? 'tx' : 'txs'}${failed > 0 ? ` (${failed} failed)` : ''}`);
  if (txs > 0) {
    let gas = 0n;
    for (const r of results) if (r.gas_used !== undefined && /^\d+$/.test(r.gas_used)) gas += BigInt(r.gas_used);
    parts.push(`gas ${gas}`);
  }
  const hash = value?.block_id?.hash;
  if (hash) parts.push(`0x${hash.toLowerCase().slice(0, 12)}…`);
  return parts.join(' · ');
}

/**
 * Prints one line per block of the devnet through `print`, from the NewBlock events on the bus, until
 * the returned function is called (or the bus closes). A subscriber that fell behind and was
 * cancelled subscribes again and goes on from the next block.
 */
export function followBlocks(bus: EventBus, print: (line: string) => void): () => void {
  let stopped = false;
  const subscribe = (): void => {
    try {
      bus.subscribe(BLOCK_LINES_SUBSCRIBER, NEW_BLOCK, {
        bufferSize: 100,
        onEvent: (event) => {
          const line = blockLine(event);
          if (line !== undefined) print(line);
        },
        onCancel: () => {
          if (stopped) return;
          if (bus.hasSubscription(BLOCK_LINES_SUBSCRIBER, NEW_BLOCK)) bus.unsubscribe(BLOCK_LINES_SUBSCRIBER, NEW_BLOCK);
          subscribe();
        },
      });
    } catch {
      // The bus is closed: the gateway is stopping.
    }
  };
  subscribe();
  return () => {
    stopped = true;
    if (bus.hasSubscription(BLOCK_LINES_SUBSCRIBER, NEW_BLOCK)) bus.unsubscribe(BLOCK_LINES_SUBSCRIBER, NEW_BLOCK);
  };
}
