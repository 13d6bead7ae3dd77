import type { NodeBackend } from '../../backends/node-backend';
import type { GatewayConfigService } from '../../config/gateway-config.service';
import type { JsonObject } from '../../rpc/json';
import { defineMethod, IMMUTABLE, LATEST, NEVER, optional, param, type AnyMethod, type CacheRule } from '../../rpc/method';
import { queryCaps } from '../query-caps';
import { txHeightOf } from '../tx-height';
import { bool, bytes, hexbytes, int, int64, string, uint } from '../params/codecs';

/** A read at an optional height: immutable when one was given (success implies it is at or below the latest). */
const atHeight = { cache: (a: { height?: bigint }): CacheRule => (a.height === undefined ? LATEST : IMMUTABLE), height: (a: { height?: bigint }) => a.height };
/** Found by hash: an answer whose `field` is null (not found yet) may change. */
const foundBy = (field: string): CacheRule => ({ kind: 'immutable', keep: (r) => (r as JsonObject)?.[field] !== null });

/** The Info category of CometBFT's routes: chain, blocks, validators, consensus and index reads. */
export function infoMethods(b: NodeBackend, config: GatewayConfigService): AnyMethod[] {
  const read = { group: 'info', idempotent: true, forward: true } as const;
  const validate = queryCaps(config);
  return [
    defineMethod({ ...read, name: 'health', params: [], forward: false, handler: () => b.health() }),
    defineMethod({ ...read, name: 'status', params: [], cache: () => LATEST, handler: () => b.status() }),
    defineMethod({ ...read, name: 'net_info', params: [], handler: () => b.netInfo() }),
    defineMethod({
      ...read,
      name: 'blockchain',
      params: [param('minHeight', int64), param('maxHeight', int64)],
      height: (a) => (a.maxHeight > 0n ? a.maxHeight : undefined),
      handler: (a) => b.blockchain(a.minHeight, a.maxHeight),
    }),
    defineMethod({ ...read, name: 'genesis', params: [], cache: () => IMMUTABLE, handler: () => b.genesis() }),
    defineMethod({ ...read, name: 'genesis_chunked', params: [param('chunk', uint)], cache: () => IMMUTABLE, handler: (a) => b.genesisChunked(a.chunk) }),
    defineMethod({ ...read, ...atHeight, name: 'block', params: [optional('height', int64)], cache: (a) => (a.height === undefined ? LATEST : foundBy('block')), handler: (a) => b.block(a.height) }),
    defineMethod({ ...read, name: 'block_by_hash', params: [param('hash', bytes)], cache: () => foundBy('block'), handler: (a) => b.blockByHash(a.hash) }),
    defineMethod({ ...read, ...atHeight, name: 'block_results', params: [optional('height', int64)], handler: (a) => b.blockResults(a.height) }),
    defineMethod({
      ...read,
      ...atHeight,
      name: 'commit',
      params: [optional('height', int64)],
      // The latest height's commit is the node's seen commit; it is replaced by the canonical one.
      cache: (a) => (a.height === undefined ? LATEST : { kind: 'immutable', keep: (r) => (r as JsonObject).canonical === true }),
      handler: (a) => b.commit(a.height),
    }),
    defineMethod({ ...read, ...atHeight, name: 'header', params: [optional('height', int64)], handler: (a) => b.header(a.height) }),
    defineMethod({ ...read, name: 'header_by_hash', params: [param('hash', hexbytes)], cache: () => foundBy('header'), handler: (a) => b.headerByHash(a.hash) }),
    defineMethod({
      ...read,
      ...atHeight,
      name: 'validators',
      params: [optional('height', int64), optional('page', int), optional('per_page', int)],
      handler: (a) => b.validators(a.height, a.page, a.per_page),
    }),
    defineMethod({ ...read, name: 'dump_consensus_state', params: [], handler: () => b.dumpConsensusState() }),
    defineMethod({ ...read, name: 'consensus_state', params: [], handler: () => b.consensusState() }),
    defineMethod({ ...read, ...atHeight, name: 'consensus_params', params: [optional('height', int64)], handler: (a) => b.consensusParams(a.height) }),
    defineMethod({ ...read, name: 'unconfirmed_txs', params: [optional('limit', int)], handler: (a) => b.unconfirmedTxs(a.limit) }),
    defineMethod({ ...read, name: 'num_unconfirmed_txs', params: [], handler: () => b.numUnconfirmedTxs() }),
    defineMethod({
      ...read,
      name: 'tx',
      params: [param('hash', bytes), param('prove', bool)],
      cache: () => IMMUTABLE,
      revealsHeight: txHeightOf,
      handler: (a) => b.tx(a.hash, a.prove),
    }),
    defineMethod({
      ...read,
      name: 'tx_search',
      params: [param('query', string), param('prove', bool), optional('page', int), optional('per_page', int), param('order_by', string)],
      cache: () => NEVER,
      validate,
      handler: (a) => b.txSearch(a.query, a.prove, a.page, a.per_page, a.order_by),
    }),
    defineMethod({
      ...read,
      name: 'block_search',
      params: [param('query', string), optional('page', int), optional('per_page', int), param('order_by', string)],
      validate,
      handler: (a) => b.blockSearch(a.query, a.page, a.per_page, a.order_by),
    }),
  ];
}
