/**
 * The wire shapes of the node RPC results the gateway reads itself (CometBFT v0.38: int64 as strings,
 * hashes as upper-case hex), as far as it reads them.
 */
import type { JsonObject } from '../rpc/json';

export interface NodeStatus extends JsonObject {
  readonly node_info: JsonObject & { readonly network: string; readonly moniker: string };
  readonly sync_info: JsonObject & { readonly latest_block_height: string; readonly earliest_block_height: string; readonly catching_up: boolean };
}

export interface NodeBlock extends JsonObject {
  readonly block_id: JsonObject & { readonly hash: string };
  readonly block: (JsonObject & { readonly header: JsonObject & { readonly height: string; readonly time: string } }) | null;
}

export interface NodeBlockResults extends JsonObject {
  readonly height: string;
}

export interface NumUnconfirmedTxs extends JsonObject {
  readonly n_txs: string;
  readonly total: string;
  readonly total_bytes: string;
}

/** broadcast_tx_sync / check_tx: the node's CheckTx result. */
export interface NodeCheckTx extends JsonObject {
  readonly code: number;
  readonly log: string;
}
