/**
 * Where the EVM's Merkle-Patricia trie nodes (and contract code, keyed by its hash) live: a table of
 * the devnet database, plus the nodes the live state wrote since the last block was committed. Nodes
 * are content-addressed and never deleted, so every state root ever committed stays readable.
 *
 * The live state writes into `pending`; commit hands those writes to the block's atomic batch. Until
 * the next block is committed they also stay readable from memory, because the batch is written after
 * the application's commit. Queries get a scratch view: it reads the store and keeps its own writes
 * (a call's hypothetical state) in memory, to be dropped with it.
 */
import type { BatchDBOp, DB } from '@ethereumjs/util';
import type { Table, WriteBatch } from '../store/database';

type Key = string;
type Value = string | Uint8Array;

export class TrieNodeStore {
  /** Shared with the live database, so it is emptied in place, never replaced. */
  private readonly pending = new Map<Key, string>();
  private committing = new Map<Key, string>();

  constructor(private readonly table: Table<string>) {}

  async read(key: Key): Promise<string | undefined> {
    return this.pending.get(key) ?? this.committing.get(key) ?? (await this.table.get(key));
  }

  /** The database of the chain's own state: its writes are committed with the next block. */
  liveDb(): DB<Key, Value> {
    return new NodeDb(this, this.pending);
  }

  /** A database whose writes stay in memory and are forgotten with it. */
  scratchDb(): DB<Key, Value> {
    return new NodeDb(this, new Map());
  }

  /** Adds the live state's new nodes to the block's write. */
  commitInto(batch: WriteBatch): void {
    for (const [key, value] of this.pending) batch.put(this.table, key, value);
    this.committing = new Map(this.pending);
    this.pending.clear();
  }
}

/** ethereumjs's DB interface (hex-string keys and values, as the trie's CheckpointDB uses it). */
class NodeDb implements DB<Key, Value> {
  constructor(
    private readonly store: TrieNodeStore,
    private readonly writes: Map<Key, string>,
  ) {}

  async get(key: Key): Promise<Value | undefined> {
    return this.writes.get(key) ?? (await this.store.read(key));
  }

  async put(key: Key, value: Value): Promise<void> {
    this.writes.set(key, typeof value === 'string' ? value : Buffer.from(value).toString('hex'));
  }

  /** Nodes are never pruned: a node another root still needs must not go. */
  async del(): Promise<void> {}

  async batch(ops: BatchDBOp<Key, Value>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') await this.put(op.key, op.value);
  }

  shallowCopy(): DB<Key, Value> {
    return this;
  }

  async open(): Promise<void> {}
}
