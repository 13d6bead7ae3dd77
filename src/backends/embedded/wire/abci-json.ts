/**
 * The node RPC's JSON for ABCI types. ExecTxResult, ResponseCheckTx, ResponseQuery and EventAttribute
 * use gogo-jsonpb (every field present, int64 as strings, empty bytes as null); the other types go
 * through CometBFT's amino-style encoder, which honours `omitempty`.
 */
import type { AbciEvent, ExecTxResult } from '../../../devnet/chain/types';
import { base64Json } from '../../../devnet/chain/wire';
import type { Json, JsonObject } from '../../../rpc/json';
import type { FinalizeBlockResult, InfoResult, QueryResult, ValidatorUpdate } from '../../../devnet/app/application';

/** jsonpb Event: `{type, attributes}`, both always present. */
function eventJsonpb(event: AbciEvent): JsonObject {
  return { type: event.type, attributes: event.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })) };
}

/** An Event outside jsonpb (block events): type and attributes each left out when empty. */
export function eventJson(event: AbciEvent): JsonObject {
  const json: JsonObject = {};
  if (event.type !== '') json.type = event.type;
  if (event.attributes.length > 0) json.attributes = eventJsonpb(event).attributes;
  return json;
}

/** ExecTxResult, and ResponseCheckTx, which has the same fields. */
export function txResultJson(r: ExecTxResult): JsonObject {
  return {
    code: r.code,
    data: base64Json(r.data),
    log: r.log,
    info: r.info,
    gas_wanted: r.gasWanted.toString(),
    gas_used: r.gasUsed.toString(),
    events: r.events.map(eventJsonpb),
    codespace: r.codespace,
  };
}

export function queryResultJson(q: QueryResult): JsonObject {
  return {
    code: q.code,
    log: q.log,
    info: q.info,
    index: q.index.toString(),
    key: base64Json(q.key),
    value: base64Json(q.value),
    proofOps: null,
    height: q.height.toString(),
    codespace: q.codespace,
  };
}

/** ResponseInfo: every field left out when empty or zero. */
export function infoJson(info: InfoResult): JsonObject {
  const json: JsonObject = {};
  if (info.data !== '') json.data = info.data;
  if (info.version !== '') json.version = info.version;
  if (info.appVersion !== 0n) json.app_version = info.appVersion.toString();
  if (info.lastBlockHeight !== 0n) json.last_block_height = info.lastBlockHeight.toString();
  if (info.lastBlockAppHash.length > 0) json.last_block_app_hash = base64Json(info.lastBlockAppHash);
  return json;
}

/** ValidatorUpdate: the proto PublicKey oneof as the amino encoder writes it, power left out when 0. */
export function validatorUpdateJson(u: ValidatorUpdate): JsonObject {
  const json: JsonObject = {
    pub_key: { Sum: { type: 'tendermint.crypto.PublicKey_Ed25519', value: { ed25519: base64Json(u.pubKey) } } },
  };
  if (u.power !== 0n) json.power = u.power.toString();
  return json;
}

/**
 * ResponseFinalizeBlock as the NewBlock event carries it, straight from the application:
 * `validator_updates` is present (the kvstore's empty list is `[]`), the rest is left out when empty.
 */
export function finalizeBlockJson(r: FinalizeBlockResult): JsonObject {
  const json: JsonObject = {};
  if (r.events.length > 0) json.events = r.events.map(eventJson);
  if (r.txResults.length > 0) json.tx_results = r.txResults.map(txResultJson);
  json.validator_updates = r.validatorUpdates.map(validatorUpdateJson);
  if (r.appHash.length > 0) json.app_hash = base64Json(r.appHash);
  return json;
}

/** block_results: the stored response, whose empty lists read back as null. */
export function blockResultsJson(height: bigint, r: FinalizeBlockResult): JsonObject {
  const list = <T>(items: T[], encode: (item: T) => JsonObject): Json => (items.length === 0 ? null : items.map(encode));
  return {
    height: height.toString(),
    txs_results: list(r.txResults, txResultJson),
    finalize_block_events: list(r.events, eventJson),
    validator_updates: list(r.validatorUpdates, validatorUpdateJson),
    consensus_param_updates: null,
    app_hash: base64Json(r.appHash),
  };
}
