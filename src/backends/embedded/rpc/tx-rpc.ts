/** The indexer routes: tx, tx_search and block_search (rpc/core/tx.go, blocks.go). */
import type { JsonObject } from '../../../rpc/json';
import { ApplicationError } from '../../../rpc/errors';
import { parseQuery, Query, QueryParseError } from '../../../events/query';
import { txHash, txProof } from '../../../devnet/chain/hashing';
import { hexJson, txProofJson } from '../../../devnet/chain/wire';
import type { Devnet } from '../../../devnet/devnet';
import type { TxRecord } from '../../../devnet/producer/chain-state';
import { txResultJson } from '../wire/abci-json';
import { asJson } from '../../../devnet/json';
import { pageOf, perPageOf } from './paging';
import type { BlockRpc } from './block-rpc';

const MAX_QUERY_LENGTH = 512;

type Order = 'asc' | 'desc';

export class TxRpc {
  constructor(
    private readonly devnet: Devnet,
    private readonly blocks: BlockRpc,
  ) {}

  async tx(hash: Uint8Array, prove: boolean): Promise<JsonObject> {
    if (hash.length === 0) throw new ApplicationError('transaction hash cannot be empty');
    const record = await this.devnet.txIndexer.get(hash);
    if (record === undefined) throw new ApplicationError(`tx (${hexJson(hash)}) not found`);
    return this.txJson(hash, record, prove);
  }

  /** Stops once `signal` fires (the call's deadline). */
  async txSearch(query: string, prove: boolean, page: number | undefined, perPage: number | undefined, orderBy: string, signal?: AbortSignal): Promise<JsonObject> {
    if (Buffer.byteLength(query) > MAX_QUERY_LENGTH) throw new ApplicationError('maximum query length exceeded');
    const records = await this.search(() => this.devnet.txIndexer.search(parse(query), signal));
    const order = orderOf(orderBy, 'asc');
    const sign = order === 'asc' ? 1 : -1;
    records.sort((a, b) => sign * (a.height === b.height ? a.index - b.index : a.height < b.height ? -1 : 1));
    const shown = pageOf(records, page, perPageOf(perPage));
    const txs = await Promise.all(shown.map((r) => this.txJson(txHash(r.tx), r, prove)));
    return { txs, total_count: records.length.toString() };
  }

  /** Stops once `signal` fires (the call's deadline). */
  async blockSearch(query: string, page: number | undefined, perPage: number | undefined, orderBy: string, signal?: AbortSignal): Promise<JsonObject> {
    const heights = await this.search(() => this.devnet.blockIndexer.search(parse(query), signal));
    if (orderOf(orderBy, 'desc') === 'desc') heights.reverse();
    const shown = pageOf(heights, page, perPageOf(perPage));
    const blocks = await Promise.all(shown.map((h) => this.blocks.block(h)));
    return { blocks, total_count: heights.length.toString() };
  }

  /** Indexer failures reach the client with their texts. */
  private async search<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ApplicationError) throw err;
      throw new ApplicationError(err instanceof Error ? err.message : String(err));
    }
  }

  private async txJson(hash: Uint8Array, record: TxRecord, prove: boolean): Promise<JsonObject> {
    const json: JsonObject = {
      hash: hexJson(hash),
      height: record.height.toString(),
      index: record.index,
      tx_result: txResultJson(record.result),
      tx: Buffer.from(record.tx).toString('base64'),
    };
    if (prove) {
      const block = await this.devnet.store.loadBlock(record.height);
      if (block !== undefined) json.proof = asJson(txProofJson(txProof(block.txs, record.index)));
    }
    return json;
  }
}

/** A parse error is returned as the parser's own text. */
function parse(query: string): Query {
  try {
    return parseQuery(query);
  } catch (err) {
    if (err instanceof QueryParseError) throw new ApplicationError(err.message);
    throw err;
  }
}

/** `asc`, `desc`, or "" for the route's default. */
function orderOf(orderBy: string, fallback: Order): Order {
  if (orderBy === '') return fallback;
  if (orderBy === 'asc' || orderBy === 'desc') return orderBy;
  throw new ApplicationError('expected order_by to be either `asc` or `desc` or empty');
}
