import { Inject, Injectable } from '@nestjs/common';
import { BACKEND_SERVICES, type BackendServices } from '../../backends/backend-services';
import type { JsonObject } from '../../rpc/json';
import { defineMethod, IMMUTABLE, LATEST, NEVER, optional, param, returns, type AnyMethod, type CacheRule } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import { queryCaps } from '../query-caps';
import { txHeightOf } from '../tx-height';
import { bool, bytes, hexbytes, int, int64, string, uint } from '../params/codecs';
import type { NodeBlock, NodeBlockResults, NodeStatus, NumUnconfirmedTxs } from '../node-types';

/** A read at an optional height: immutable when one was given (success implies it is at or below the latest). */
const atHeight = { cache: (a: { height?: bigint }): CacheRule => (a.height === undefined ? LATEST : IMMUTABLE), height: (a: { height?: bigint }) => a.height };
/** Found by hash: an answer whose `field` is null (not found yet) may change. */
const foundBy = (field: string): CacheRule => ({ kind: 'immutable', keep: (r) => (r as JsonObject)?.[field] !== null });

/** The Info category of CometBFT's routes: chain, blocks, validators, consensus and index reads. */
const read = { group: 'info', idempotent: true, result: returns<JsonObject>() } as const;

export const status = defineMethod({ ...read, name: 'status', params: [], cache: () => LATEST, result: returns<NodeStatus>() });
export const net_info = defineMethod({ ...read, name: 'net_info', params: [] });
export const blockchain = defineMethod({
  ...read,
  name: 'blockchain',
  params: [param('minHeight', int64), param('maxHeight', int64)],
  height: (a) => (a.maxHeight > 0n ? a.maxHeight : undefined),
});
export const genesis = defineMethod({ ...read, name: 'genesis', params: [], cache: () => IMMUTABLE });
export const genesis_chunked = defineMethod({ ...read, name: 'genesis_chunked', params: [param('chunk', uint)], cache: () => IMMUTABLE });
export const block = defineMethod({
  ...read,
  ...atHeight,
  name: 'block',
  params: [optional('height', int64)],
  cache: (a) => (a.height === undefined ? LATEST : foundBy('block')),
  result: returns<NodeBlock>(),
});
export const block_by_hash = defineMethod({ ...read, name: 'block_by_hash', params: [param('hash', bytes)], cache: () => foundBy('block'), result: returns<NodeBlock>() });
export const block_results = defineMethod({ ...read, ...atHeight, name: 'block_results', params: [optional('height', int64)], result: returns<NodeBlockResults>() });
export const commit = defineMethod({
  ...read,
  ...atHeight,
  name: 'commit',
  params: [optional('height', int64)],
  // The latest height's commit is the node's seen commit; it is replaced by the canonical one.
  cache: (a) => (a.height === undefined ? LATEST : { kind: 'immutable', keep: (r) => (r as JsonObject).canonical === true }),
});
export const header = defineMethod({ ...read, ...atHeight, name: 'header', params: [optional('height', int64)] });
export const header_by_hash = defineMethod({ ...read, name: 'header_by_hash', params: [param('hash', hexbytes)], cache: () => foundBy('header') });
export const validators = defineMethod({ ...read, ...atHeight, name: 'validators', params: [optional('height', int64), optional('page', int), optional('per_page', int)] });
export const dump_consensus_state = defineMethod({ ...read, name: 'dump_consensus_state', params: [] });
export const consensus_state = defineMethod({ ...read, name: 'consensus_state', params: [] });
export const consensus_params = defineMethod({ ...read, ...atHeight, name: 'consensus_params', params: [optional('height', int64)] });
export const unconfirmed_txs = defineMethod({ ...read, name: 'unconfirmed_txs', params: [optional('limit', int)] });
export const num_unconfirmed_txs = defineMethod({ ...read, name: 'num_unconfirmed_txs', params: [], result: returns<NumUnconfirmedTxs>() });
export const tx = defineMethod({ ...read, name: 'tx', params: [param('hash', bytes), param('prove', bool)], cache: () => IMMUTABLE, revealsHeight: txHeightOf });
export const tx_search = defineMethod({
  ...read,
  name: 'tx_search',
  params: [param('query', string), param('prove', bool), optional('page', int), optional('per_page', int), param('order_by', string)],
  cache: () => NEVER,
  prepare: queryCaps,
});
export const block_search = defineMethod({
  ...read,
  name: 'block_search',
  params: [param('query', string), optional('page', int), optional('per_page', int), param('order_by', string)],
  prepare: queryCaps,
});

/** The Info category, with `health`: the backend's own (the devnet's, or the upstream pool's state). */
@Injectable()
export class InfoMethods implements MethodSource {
  constructor(@Inject(BACKEND_SERVICES) private readonly backend: BackendServices) {}

  methods(): AnyMethod[] {
    return [
      defineMethod({ group: 'info', idempotent: true, name: 'health', params: [], handler: () => this.backend.health() }),
      status,
      net_info,
      blockchain,
      genesis,
      genesis_chunked,
      block,
      block_by_hash,
      block_results,
      commit,
      header,
      header_by_hash,
      validators,
      dump_consensus_state,
      consensus_state,
      consensus_params,
      unconfirmed_txs,
      num_unconfirmed_txs,
      tx,
      tx_search,
      block_search,
    ];
  }
}
