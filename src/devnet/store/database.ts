/**
 * The devnet's key-value database: LevelDB (classic-level) under a directory, or memory-level when
 * ephemeral. Each kind of record lives in its own table (a sublevel); the writes of one block go to
 * the database in a single atomic batch.
 */
import type { AbstractBatchOperation, AbstractLevel, AbstractSublevel } from 'abstract-level';
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import { decodeValue, encodeValue } from './codec';

type Root = AbstractLevel<string | Buffer | Uint8Array, string, string>;
type Sublevel = AbstractSublevel<Root, string | Buffer | Uint8Array, string, string>;

export class Database {
  private constructor(private readonly root: Root) {}

  /** Opens LevelDB at `path`, or an in-memory database when `path` is undefined. */
  static async open(path: string | undefined): Promise<Database> {
    const root: Root = path === undefined ? new MemoryLevel<string, string>() : new ClassicLevel<string, string>(path);
    await root.open();
    return new Database(root);
  }

  table<T>(name: string): Table<T> {
    return new Table<T>(this.root.sublevel(name));
  }

  batch(): WriteBatch {
    return new WriteBatch(this.root);
  }

  close(): Promise<void> {
    return this.root.close();
  }
}

/** Records of one type under string keys. */
export class Table<T> {
  constructor(readonly sublevel: Sublevel) {}

  async get(key: string): Promise<T | undefined> {
    const text = await this.sublevel.get(key);
    return text === undefined ? undefined : decodeValue<T>(text);
  }

  /** Entries with keys in [gte, lt), in key order. */
  private async *entries(range: { gte: string; lt?: string }): AsyncGenerator<[string, T]> {
    for await (const [key, text] of this.sublevel.iterator(range)) yield [key, decodeValue<T>(text)];
  }

  /** Entries whose key starts with `prefix`, which is empty or ends in an ASCII character. */
  byPrefix(prefix: string): AsyncGenerator<[string, T]> {
    if (prefix === '') return this.entries({ gte: '' });
    return this.entries({ gte: prefix, lt: prefixEnd(prefix) });
  }

  /** Entries with keys in [gte, lt), in key order or, with `reverse`, from the last one down. */
  async *range(range: { gte: string; lt: string; reverse?: boolean }): AsyncGenerator<[string, T]> {
    for await (const [key, text] of this.sublevel.iterator(range)) yield [key, decodeValue<T>(text)];
  }
}

/** The least key above every key that starts with `prefix` (non-empty, ending in an ASCII character). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** Puts and deletes across tables, written atomically. */
export class WriteBatch {
  private readonly ops: AbstractBatchOperation<Root, string, string>[] = [];

  constructor(private readonly root: Root) {}

  put<T>(table: Table<T>, key: string, value: T): this {
    this.ops.push({ type: 'put', sublevel: table.sublevel, key, value: encodeValue(value) });
    return this;
  }

  del(table: Table<unknown>, key: string): this {
    this.ops.push({ type: 'del', sublevel: table.sublevel, key });
    return this;
  }

  write(): Promise<void> {
    return this.root.batch(this.ops);
  }
}

/** A height as a key that sorts numerically (int64 heights fit in 19 digits). */
export function heightKey(height: bigint): string {
  return height.toString().padStart(19, '0');
}
