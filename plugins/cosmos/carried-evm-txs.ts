/**
 * Which EVM transactions a CometBFT tx carries, by their EVM hashes (lower-case 0x-hex).
 *
 * From the tx bytes:
 * - a signed raw Ethereum tx (the embedded devnet's form: an RLP list, or a type byte 0x01–0x04 and an
 *   RLP list, spanning the bytes exactly): keccak256 of the bytes;
 * - a Cosmos TxRaw (a real Cosmos-EVM chain) whose body holds MsgEthereumTx messages: Cosmos EVM's
 *   `/cosmos.evm.vm.v1.MsgEthereumTx` carries the raw Ethereum tx in `raw` (field 6): keccak256 of it;
 *   Ethermint and Evmos (`/ethermint.evm.v1.MsgEthereumTx`, …) carry its hash in `hash` (field 3),
 *   which their ValidateBasic checks against the tx. A message holding only the tx's fields (`data`)
 *   is not rebuilt here; its executed tx is still found by its events.
 *
 * From the tx's ABCI events: `ethereum_tx` events' `ethereumTxHash` attributes, which Evmos's and Cosmos
 * EVM's x/evm (and the devnet) emit for each executed Ethereum tx.
 */
import { BinaryReader } from 'cosmjs-types/binary';
import { TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { keccak256, type Json } from 'rpc-gateway/plugin-api';

const EVM_HASH = /^0x[0-9a-fA-F]{64}$/;
const LENGTH_DELIMITED = 2;

/** The EVM hashes the tx bytes carry, in message order; none for any other tx. */
export function evmHashesOfTx(tx: Uint8Array): string[] {
  if (isEthereumEnvelope(tx)) return [keccak256(tx)];
  return msgEthereumTxHashes(tx);
}

/** The EVM hashes named by `ethereum_tx` events (a tx result's `events`, as the node RPC answers them). */
export function evmHashesInEvents(events: Json | undefined): string[] {
  if (!Array.isArray(events)) return [];
  const hashes: string[] = [];
  for (const event of events) {
    if (!isObject(event) || event.type !== 'ethereum_tx' || !Array.isArray(event.attributes)) continue;
    for (const attribute of event.attributes) {
      if (isObject(attribute) && attribute.key === 'ethereumTxHash' && typeof attribute.value === 'string' && EVM_HASH.test(attribute.value)) {
        hashes.push(attribute.value.toLowerCase());
      }
    }
  }
  return hashes;
}

function isObject(value: Json): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface RlpItem {
  readonly list: boolean;
  /** Where its payload starts and where the item ends. */
  readonly payload: number;
  readonly end: number;
}

/** The RLP item at `at`, or undefined when its header does not fit in `bytes`. */
function rlpItem(bytes: Uint8Array, at: number): RlpItem | undefined {
  const first = bytes[at];
  if (first === undefined) return undefined;
  const list = first >= 0xc0;
  const base = list ? 0xc0 : 0x80;
  if (first < 0x80) return { list: false, payload: at, end: at + 1 };
  let payload = at + 1;
  let length = first - base;
  if (length > 55) {
    const lengthBytes = length - 55;
    if (at + 1 + lengthBytes > bytes.length) return undefined;
    length = 0;
    for (let i = 0; i < lengthBytes; i++) length = length * 256 + bytes[at + 1 + i];
    payload += lengthBytes;
  }
  const end = payload + length;
  return end <= bytes.length ? { list, payload, end } : undefined;
}

/** The items of the RLP list that spans `bytes` from `at` to the end exactly; undefined for anything else. */
function rlpListItems(bytes: Uint8Array, at: number): RlpItem[] | undefined {
  const outer = rlpItem(bytes, at);
  if (outer === undefined || !outer.list || outer.end !== bytes.length) return undefined;
  const items: RlpItem[] = [];
  for (let pos = outer.payload; pos < outer.end; ) {
    const item = rlpItem(bytes, pos);
    if (item === undefined || item.end > outer.end) return undefined;
    items.push(item);
    pos = item.end;
  }
  return items;
}

const LEGACY_FIELDS = 9;

/**
 * A signed Ethereum tx envelope, as the devnet tells its EVM txs from the kvstore's: a legacy tx (an RLP
 * list of its 9 fields) or an EIP-2718 typed one (type 0x01–0x04, then an RLP list), spanning the bytes.
 */
function isEthereumEnvelope(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  if (bytes[0] >= 0x01 && bytes[0] <= 0x04) return rlpListItems(bytes, 1) !== undefined;
  const fields = rlpListItems(bytes, 0);
  return fields !== undefined && fields.length === LEGACY_FIELDS && fields.every((f) => !f.list);
}

/** The EVM hashes of the MsgEthereumTx messages of a Cosmos TxRaw; none when the bytes are not one. */
function msgEthereumTxHashes(tx: Uint8Array): string[] {
  let messages: TxBody['messages'];
  try {
    messages = TxBody.decode(TxRaw.decode(tx).bodyBytes).messages;
  } catch {
    return [];
  }
  const hashes: string[] = [];
  for (const message of messages) {
    if (!message.typeUrl.endsWith('.MsgEthereumTx')) continue;
    const hash = msgEthereumTxHash(message.value);
    if (hash !== undefined) hashes.push(hash);
  }
  return hashes;
}

/** `raw` (field 6, Cosmos EVM) hashed, else `hash` (field 3, Ethermint/Evmos). */
function msgEthereumTxHash(value: Uint8Array): string | undefined {
  let raw: Uint8Array | undefined;
  let hash: string | undefined;
  try {
    const reader = new BinaryReader(value);
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      const field = tag >>> 3;
      const wireType = tag & 7;
      if (field === 6 && wireType === LENGTH_DELIMITED) raw = reader.bytes();
      else if (field === 3 && wireType === LENGTH_DELIMITED) hash = reader.string();
      else reader.skipType(wireType);
    }
  } catch {
    return undefined;
  }
  if (raw !== undefined && raw.length > 0) return keccak256(raw);
  return hash !== undefined && EVM_HASH.test(hash) ? hash.toLowerCase() : undefined;
}
