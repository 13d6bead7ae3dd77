/**
 * The node-RPC pool's protocol: health from `status`, CometBFT's texts passed on as ApplicationErrors;
 * `status` (`node_info.network`) and every block header (`chain_id`) state the chain.
 */
import { block, block_by_hash, commit, header, header_by_hash, status } from '../../node-rpc/definitions';
import { ApplicationError } from '../../rpc/errors';
import { readResult } from '../../rpc/result-json';
import type { PoolProtocol, Probe } from './pool-protocol';
import type { Upstream } from './upstream';

/** Where the answers that state the chain state it. */
const CHAIN_AT = new Map<string, readonly string[]>([
  [status.name, ['node_info', 'network']],
  [block.name, ['block', 'header', 'chain_id']],
  [block_by_hash.name, ['block', 'header', 'chain_id']],
  [header.name, ['header', 'chain_id']],
  [header_by_hash.name, ['header', 'chain_id']],
  [commit.name, ['signed_header', 'header', 'chain_id']],
]);

export const NODE_PROTOCOL: PoolProtocol = {
  async probe(u: Upstream, timeoutMs: number): Promise<Probe> {
    try {
      const { result } = await u.client.call(status.name, {}, timeoutMs);
      const answer = result as { node_info?: { network?: string }; sync_info?: Record<string, unknown> };
      const sync = answer.sync_info ?? {};
      return {
        ok: true,
        network: String(answer.node_info?.network ?? ''),
        latest: BigInt(String(sync.latest_block_height ?? '0')),
        earliest: BigInt(String(sync.earliest_block_height ?? '1')) || 1n,
        catchingUp: sync.catching_up === true,
      };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  },
  hasBlock: (u, height, timeoutMs) => u.client.call(header.name, { height: height.toString() }, timeoutMs).then(() => true, () => false),
  chainOf(method, result) {
    const path = CHAIN_AT.get(method);
    if (path === undefined) return undefined;
    let value: unknown = readResult(result);
    for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  },
  missingHere: [/must be less than or equal to the current blockchain height/, /is not available, lowest height is/, /could not find results for height/],
  answerError: (err) => new ApplicationError(err.detail || err.rpcMessage),
  noneConfigured: 'no upstream node is configured',
  noneHealthy: 'no healthy upstream node available',
};
