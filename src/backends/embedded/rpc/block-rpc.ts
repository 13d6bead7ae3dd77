/** The block and state reads of the Info routes (rpc/core/blocks.go, consensus.go). */
import type { JsonObject } from '../../../rpc/json';
import { ApplicationError } from '../../../rpc/errors';
import { blockIdJson, blockJson, commitJson, consensusParamsJson, headerJson, validatorJson } from '../../../devnet/chain/wire';
import type { Devnet } from '../../../devnet/devnet';
import { zeroBlockId } from '../../../devnet/producer/commit-signer';
import type { BlockMeta } from '../../../devnet/producer/chain-state';
import { blockResultsJson } from '../wire/abci-json';
import { asJson } from '../../../devnet/json';
import { pageOf, perPageOf, resolveHeight } from './paging';

/** blockchain returns at most this many block metas. */
const BLOCKCHAIN_LIMIT = 20n;

export class BlockRpc {
  constructor(private readonly devnet: Devnet) {}

  async blockchain(minHeight: bigint, maxHeight: bigint): Promise<JsonObject> {
    const [min, max] = this.filterMinMax(minHeight, maxHeight);
    const metas: JsonObject[] = [];
    for (let h = max; h >= min; h--) {
      const meta = await this.devnet.store.loadMeta(h);
      if (meta !== undefined) metas.push(blockMetaJson(meta));
    }
    return { last_height: this.devnet.latestHeight.toString(), block_metas: metas };
  }

  async block(height?: bigint): Promise<JsonObject> {
    return this.blockAt(this.blockHeight(height));
  }

  async blockByHash(hash: Uint8Array): Promise<JsonObject> {
    const height = await this.devnet.store.heightOfHash(hash);
    return height === undefined ? { block_id: asJson(blockIdJson(zeroBlockId())), block: null } : this.blockAt(height);
  }

  async header(height?: bigint): Promise<JsonObject> {
    return this.headerAt(this.blockHeight(height));
  }

  async headerByHash(hash: Uint8Array): Promise<JsonObject> {
    const height = await this.devnet.store.heightOfHash(hash);
    return height === undefined ? { header: null } : this.headerAt(height);
  }

  /** The latest height's commit is this node's seen commit; lower ones are canonical. */
  async commit(height?: bigint): Promise<JsonObject> {
    const h = this.blockHeight(height);
    const meta = await this.devnet.store.loadMeta(h);
    const canonical = h !== this.devnet.latestHeight;
    const commit = canonical ? await this.devnet.store.loadCanonicalCommit(h) : await this.devnet.store.loadSeenCommit(h);
    if (meta === undefined || commit === undefined) throw new ApplicationError(`could not find commit for height #${h}`);
    return { signed_header: { header: asJson(headerJson(meta.header)), commit: asJson(commitJson(commit)) }, canonical };
  }

  async blockResults(height?: bigint): Promise<JsonObject> {
    const h = this.blockHeight(height);
    const results = await this.devnet.store.loadResults(h);
    if (results === undefined) throw new ApplicationError(`could not find results for height #${h}`);
    return blockResultsJson(h, results);
  }

  /** The set of a height, by default the next one, sorted and paginated. */
  async validators(height?: bigint, page?: number, perPage?: number): Promise<JsonObject> {
    const h = this.nextHeight(height);
    const set = await this.devnet.store.loadValidators(h);
    if (set === undefined) throw new ApplicationError(`could not find validator set for height #${h}`);
    const validators = pageOf(set.validators, page, perPageOf(perPage)).map((v) => asJson(validatorJson(v)));
    return {
      block_height: h.toString(),
      validators,
      count: validators.length.toString(),
      total: set.validators.length.toString(),
    };
  }

  async consensusParams(height?: bigint): Promise<JsonObject> {
    const h = this.nextHeight(height);
    const params = await this.devnet.store.loadParams(h);
    if (params === undefined) throw new ApplicationError(`could not find consensus params for height #${h}`);
    return { block_height: h.toString(), consensus_params: asJson(consensusParamsJson(params)) };
  }

  private async blockAt(height: bigint): Promise<JsonObject> {
    const [block, meta] = await Promise.all([this.devnet.store.loadBlock(height), this.devnet.store.loadMeta(height)]);
    return {
      block_id: asJson(blockIdJson(meta?.blockId ?? zeroBlockId())),
      block: block === undefined ? null : asJson(blockJson(block)),
    };
  }

  private async headerAt(height: bigint): Promise<JsonObject> {
    const meta = await this.devnet.store.loadMeta(height);
    return { header: meta === undefined ? null : asJson(headerJson(meta.header)) };
  }

  private blockHeight(requested: bigint | undefined): bigint {
    return resolveHeight(requested, this.devnet.latestHeight, this.devnet.baseHeight);
  }

  /** Validators and params default to the height being built (the node is never syncing). */
  private nextHeight(requested: bigint | undefined): bigint {
    return resolveHeight(requested, this.devnet.latestHeight + 1n, this.devnet.baseHeight);
  }

  /** filterMinMax: defaults, clamping to the stored range and to the last 20 heights. */
  private filterMinMax(minHeight: bigint, maxHeight: bigint): [bigint, bigint] {
    if (minHeight < 0n || maxHeight < 0n) throw new ApplicationError('heights must be non-negative');
    const latest = this.devnet.latestHeight;
    let min = minHeight === 0n ? 1n : minHeight;
    let max = maxHeight === 0n ? latest : maxHeight;
    if (max > latest) max = latest;
    if (min < this.devnet.baseHeight) min = this.devnet.baseHeight;
    if (min < max - BLOCKCHAIN_LIMIT + 1n) min = max - BLOCKCHAIN_LIMIT + 1n;
    if (min > max) throw new ApplicationError(`min height ${min} can't be greater than max height ${max}`);
    return [min, max];
  }
}

function blockMetaJson(meta: BlockMeta): JsonObject {
  return {
    block_id: asJson(blockIdJson(meta.blockId)),
    block_size: meta.blockSize.toString(),
    header: asJson(headerJson(meta.header)),
    num_txs: meta.numTxs.toString(),
  };
}
