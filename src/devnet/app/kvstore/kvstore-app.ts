/**
 * CometBFT's kvstore example application (abci/example/kvstore, v0.38) on the devnet's database.
 *
 * App hash: as the kvstore computes it, the number of txs executed so far as a zig-zag varint in
 * 8 bytes (so `0000000000000000` until the first tx).
 *
 * Where the real kvstore would halt the chain (a validator update CometBFT cannot apply), the devnet
 * refuses the tx instead: CheckTx rejects key types other than ed25519 and keys that are not 32 bytes;
 * FinalizeBlock fails (code 2) an update that removes an unknown validator or the devnet's own, repeats
 * a key within the block, or overflows the total voting power.
 */
import { BinaryWriter } from 'cosmjs-types/binary';
import { ValidatorUpdate as ValidatorUpdateProto } from 'cosmjs-types/tendermint/abci/types';
import type { AbciEvent } from '../../chain/types';
import type { Database, Table, WriteBatch } from '../../store/database';
import type { Application, CheckTxResult, FinalizeBlockRequest, FinalizeBlockResult, InfoResult, QueryRequest, QueryResult, ValidatorUpdate } from '../application';
import { txResult } from '../results';
import { isKeyValueTx, isValidatorTx, keyValueOf, normalizeKeyValueTx, parseValidatorTx } from './kvstore-txs';
import { toHex, utf8 } from '../../bytes';

export const CODE_TYPE_OK = 0;
export const CODE_TYPE_INVALID_TX_FORMAT = 2;

/** version.ABCIVersion of CometBFT v0.38. */
const ABCI_VERSION = '2.0.0';
const APP_VERSION = 1n;
/** types.MaxTotalVotingPower: MaxInt64 / 8. */
const MAX_TOTAL_VOTING_POWER = ((1n << 63n) - 1n) / 8n;

interface KvState {
  /** Txs executed so far; the app hash. */
  size: bigint;
  height: bigint;
}

interface PendingBlock {
  state: KvState;
  pairs: Map<string, Uint8Array>;
  updates: ValidatorUpdate[];
}

const STATE_KEY = 'state';

export class KvStoreApplication implements Application {
  private pending: PendingBlock | undefined;

  private constructor(
    private readonly pairs: Table<Uint8Array>,
    private readonly validatorTable: Table<ValidatorUpdate>,
    private readonly stateTable: Table<KvState>,
    private state: KvState,
    /** toHex(pubKey) → the validator's last update: the app's view of the set. */
    private readonly validators: Map<string, ValidatorUpdate>,
    /** The key the devnet signs with, which must stay in the set. */
    private readonly signerPubKey: Uint8Array,
  ) {}

  static async load(db: Database, signerPubKey: Uint8Array): Promise<KvStoreApplication> {
    const pairs = db.table<Uint8Array>('kvstore.pairs');
    const validatorTable = db.table<ValidatorUpdate>('kvstore.validators');
    const stateTable = db.table<KvState>('kvstore.state');
    const state = (await stateTable.get(STATE_KEY)) ?? { size: 0n, height: 0n };
    const validators = new Map<string, ValidatorUpdate>();
    for await (const [key, update] of validatorTable.byPrefix('')) validators.set(key, update);
    return new KvStoreApplication(pairs, validatorTable, stateTable, state, validators, signerPubKey);
  }

  async info(): Promise<InfoResult> {
    return {
      data: `{"size":${this.state.size}}`,
      version: ABCI_VERSION,
      appVersion: APP_VERSION,
      lastBlockHeight: this.state.height,
      lastBlockAppHash: appHashOf(this.state.size),
    };
  }

  async initChain(validators: ValidatorUpdate[], batch: WriteBatch): Promise<Uint8Array> {
    for (const update of validators) this.storeValidator(update, batch);
    return appHashOf(this.state.size);
  }

  async checkTx(tx: Uint8Array): Promise<CheckTxResult> {
    if (isValidatorTx(tx)) {
      const parsed = parseValidatorTx(tx);
      if (typeof parsed === 'string') return txResult({ code: CODE_TYPE_INVALID_TX_FORMAT });
      if (parsed.keyType !== '' && parsed.keyType !== 'ed25519') {
        return txResult({ code: CODE_TYPE_INVALID_TX_FORMAT, log: `key type ${parsed.keyType} is not supported by the devnet` });
      }
      if (parsed.pubKey.length !== 32) {
        return txResult({ code: CODE_TYPE_INVALID_TX_FORMAT, log: `ed25519 public key must be 32 bytes, got ${parsed.pubKey.length}` });
      }
    } else if (!isKeyValueTx(tx)) {
      return txResult({ code: CODE_TYPE_INVALID_TX_FORMAT });
    }
    return txResult({ code: CODE_TYPE_OK, gasWanted: 1n });
  }

  async prepareProposal(txs: Uint8Array[]): Promise<Uint8Array[]> {
    const proposed: Uint8Array[] = [];
    for (const tx of txs) {
      if ((await this.checkTx(tx)).code === CODE_TYPE_OK) proposed.push(normalizeKeyValueTx(tx));
    }
    return proposed;
  }

  async finalizeBlock(request: FinalizeBlockRequest): Promise<FinalizeBlockResult> {
    const pending: PendingBlock = { state: { size: this.state.size, height: request.height }, pairs: new Map(), updates: [] };
    const txResults = request.txs.map((tx) => {
      pending.state.size++;
      const { key, value } = keyValueOf(tx);
      if (isValidatorTx(tx)) {
        const refusal = this.stageValidatorUpdate(tx, pending.updates);
        if (refusal !== undefined) return txResult({ code: CODE_TYPE_INVALID_TX_FORMAT, log: refusal });
      } else {
        pending.pairs.set(toHex(key), value);
      }
      return txResult({ code: CODE_TYPE_OK, events: txEvents(utf8(key), utf8(value)) });
    });
    this.pending = pending;
    return {
      events: [],
      txResults,
      validatorUpdates: pending.updates,
      appHash: appHashOf(pending.state.size),
    };
  }

  commit(batch: WriteBatch): void {
    const pending = this.pending;
    if (pending === undefined) throw new Error('commit without a finalized block');
    this.pending = undefined;
    for (const [key, value] of pending.pairs) batch.put(this.pairs, key, value);
    for (const update of pending.updates) this.storeValidator(update, batch);
    batch.put(this.stateTable, STATE_KEY, pending.state);
    this.state = pending.state;
  }

  async query(request: QueryRequest): Promise<QueryResult> {
    const empty = new Uint8Array(0);
    const result: QueryResult = { code: 0, log: '', info: '', index: 0n, key: request.data, value: empty, height: 0n, codespace: '' };
    if (request.path === '/val') {
      const update = this.validators.get(toHex(request.data));
      return { ...result, value: update === undefined ? empty : delimitedValidatorUpdate(update) };
    }
    const value = await this.pairs.get(toHex(request.data));
    return {
      ...result,
      log: value === undefined ? 'does not exist' : 'exists',
      index: request.prove ? -1n : 0n,
      value: value ?? empty,
      height: this.state.height,
    };
  }

  /** Adds the tx's update to the block's updates, or says why the devnet refuses it. */
  private stageValidatorUpdate(tx: Uint8Array, updates: ValidatorUpdate[]): string | undefined {
    const parsed = parseValidatorTx(tx);
    if (typeof parsed === 'string') return parsed;
    const update: ValidatorUpdate = { keyType: 'ed25519', pubKey: parsed.pubKey, power: parsed.power };
    const key = toHex(update.pubKey);
    const name = Buffer.from(update.pubKey).toString('base64');
    if (updates.some((u) => toHex(u.pubKey) === key)) return `validator ${name} is already updated in this block`;
    if (update.power === 0n && !this.validators.has(key)) return `validator ${name} is not in the validator set`;
    if (update.power === 0n && key === toHex(this.signerPubKey)) return `the devnet's own validator ${name} cannot be removed`;
    const total = [...this.validators.values()]
      .filter((v) => toHex(v.pubKey) !== key)
      .reduce((sum, v) => sum + v.power, update.power);
    if (total > MAX_TOTAL_VOTING_POWER) {
      return `total voting power ${total} would exceed the maximum ${MAX_TOTAL_VOTING_POWER}`;
    }
    updates.push(update);
    return undefined;
  }

  private storeValidator(update: ValidatorUpdate, batch: WriteBatch): void {
    const key = toHex(update.pubKey);
    if (update.power === 0n) {
      batch.del(this.validatorTable, key);
      this.validators.delete(key);
    } else {
      batch.put(this.validatorTable, key, update);
      this.validators.set(key, update);
    }
  }
}

/** The two `app` events the kvstore emits for every tx. */
function txEvents(key: string, value: string): AbciEvent[] {
  const event = (creator: string, keyValue: string): AbciEvent => ({
    type: 'app',
    attributes: [
      { key: 'creator', value: creator, index: true },
      { key: 'key', value: keyValue, index: true },
      { key: 'index_key', value: 'index is working', index: true },
      { key: 'noindex_key', value: 'index is working', index: false },
    ],
  });
  return [event('Cosmoshi Netowoko', key), event('Cosmoshi', value)];
}

/** State.Hash(): binary.PutVarint(size) into 8 bytes. */
export function appHashOf(size: bigint): Uint8Array {
  const out = new Uint8Array(8);
  let zigzag = size >= 0n ? size << 1n : (-size << 1n) - 1n;
  for (let i = 0; i < 8; i++) {
    const byte = Number(zigzag & 0x7fn);
    zigzag >>= 7n;
    out[i] = zigzag === 0n ? byte : byte | 0x80;
    if (zigzag === 0n) break;
  }
  return out;
}

/** The kvstore keeps validators as length-delimited ValidatorUpdate protos (types.WriteMessage). */
function delimitedValidatorUpdate(update: ValidatorUpdate): Uint8Array {
  const message = ValidatorUpdateProto.encode({ pubKey: { ed25519: update.pubKey }, power: update.power }).finish();
  return BinaryWriter.create().bytes(message).finish();
}
