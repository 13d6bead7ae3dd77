/** The node-RPC pool's protocol: health from `status`, CometBFT's texts passed on as ApplicationErrors. */
import { ApplicationError } from '../../rpc/errors';
import type { PoolProtocol, Probe } from './pool-protocol';
import type { Upstream } from './upstream';

export const NODE_PROTOCOL: PoolProtocol = {
  async probe(u: Upstream, timeoutMs: number): Promise<Probe> {
    try {
      const { result } = await u.client.call('status', {}, timeoutMs);
      const status = result as { node_info?: { network?: string }; sync_info?: Record<string, unknown> };
      const sync = status.sync_info ?? {};
      return {
        ok: true,
        network: String(status.node_info?.network ?? ''),
        latest: BigInt(String(sync.latest_block_height ?? '0')),
        earliest: BigInt(String(sync.earliest_block_height ?? '1')) || 1n,
        catchingUp: sync.catching_up === true,
      };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  },
  missingHere: [/must be less than or equal to the current blockchain height/, /is not available, lowest height is/, /could not find results for height/],
  answerError: (err) => new ApplicationError(err.detail || err.rpcMessage),
  noneConfigured: 'no upstream node is configured',
  noneHealthy: 'no healthy upstream node available',
};
