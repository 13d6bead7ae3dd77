import type { JsonObject, NodeBackend } from '../../backends/node-backend';
import type { MethodSpec } from '../../rpc/method-spec';
import { heightGiven, param } from '../node-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/** The Info category of CometBFT's routes: chain, blocks, validators, consensus and index reads. */
export function infoMethods(b: NodeBackend): MethodSpec[] {
  const group = 'info';
  const read = { group, idempotent: true };
  return [
    { ...read, name: 'health', params: [], handler: () => b.health() },
    { ...read, name: 'status', params: [], handler: () => b.status() },
    { ...read, name: 'net_info', params: [], handler: () => b.netInfo() },
    {
      ...read,
      name: 'blockchain',
      params: [param('minHeight', 'int64'), param('maxHeight', 'int64')],
      handler: (a: A) => b.blockchain(a.minHeight, a.maxHeight),
    },
    { ...read, name: 'genesis', params: [], immutable: () => true, handler: () => b.genesis() },
    { ...read, name: 'genesis_chunked', params: [param('chunk', 'uint')], immutable: () => true, handler: (a: A) => b.genesisChunked(a.chunk) },
    { ...read, name: 'block', params: [param('height', 'int64', true)], immutable: heightGiven, handler: (a: A) => b.block(a.height) },
    {
      ...read,
      name: 'block_by_hash',
      params: [param('hash', 'bytes')],
      immutable: (_a, r) => (r as JsonObject).block !== null,
      handler: (a: A) => b.blockByHash(a.hash),
    },
    { ...read, name: 'block_results', params: [param('height', 'int64', true)], immutable: heightGiven, handler: (a: A) => b.blockResults(a.height) },
    {
      ...read,
      name: 'commit',
      params: [param('height', 'int64', true)],
      // The latest height's commit is the node's seen commit; it is replaced by the canonical one.
      immutable: (a, r) => heightGiven(a) && (r as JsonObject).canonical === true,
      handler: (a: A) => b.commit(a.height),
    },
    { ...read, name: 'header', params: [param('height', 'int64', true)], immutable: heightGiven, handler: (a: A) => b.header(a.height) },
    {
      ...read,
      name: 'header_by_hash',
      params: [param('hash', 'hexbytes')],
      immutable: (_a, r) => (r as JsonObject).header !== null,
      handler: (a: A) => b.headerByHash(a.hash),
    },
    {
      ...read,
      name: 'validators',
      params: [param('height', 'int64', true), param('page', 'int', true), param('per_page', 'int', true)],
      immutable: heightGiven,
      handler: (a: A) => b.validators(a.height, a.page, a.per_page),
    },
    { ...read, name: 'dump_consensus_state', params: [], handler: () => b.dumpConsensusState() },
    { ...read, name: 'consensus_state', params: [], handler: () => b.consensusState() },
    { ...read, name: 'consensus_params', params: [param('height', 'int64', true)], immutable: heightGiven, handler: (a: A) => b.consensusParams(a.height) },
    { ...read, name: 'unconfirmed_txs', params: [param('limit', 'int', true)], handler: (a: A) => b.unconfirmedTxs(a.limit) },
    { ...read, name: 'num_unconfirmed_txs', params: [], handler: () => b.numUnconfirmedTxs() },
    { ...read, name: 'tx', params: [param('hash', 'bytes'), param('prove', 'bool')], immutable: () => true, handler: (a: A) => b.tx(a.hash, a.prove) },
    {
      ...read,
      name: 'tx_search',
      params: [param('query', 'string'), param('prove', 'bool'), param('page', 'int', true), param('per_page', 'int', true), param('order_by', 'string')],
      handler: (a: A) => b.txSearch(a.query, a.prove, a.page, a.per_page, a.order_by),
    },
    {
      ...read,
      name: 'block_search',
      params: [param('query', 'string'), param('page', 'int', true), param('per_page', 'int', true), param('order_by', 'string')],
      handler: (a: A) => b.blockSearch(a.query, a.page, a.per_page, a.order_by),
    },
  ];
}
