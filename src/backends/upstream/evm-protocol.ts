/**
 * The EVM pool's protocol: health from `eth_blockNumber`, `eth_syncing` and `eth_chainId` (asked
 * together); an upstream's error answer reaches the client with its own code, message and data (a
 * revert keeps code 3 and its data), as go-ethereum wrote it. `eth_chainId` and `net_version` (the
 * chain id in decimal, as Evmos answers it) state the chain.
 */
import { eth_blockNumber, eth_chainId, eth_getBlockTransactionCountByNumber, eth_syncing, net_version } from '../../evm-rpc/definitions';
import { ApplicationError } from '../../rpc/errors';
import { readResult } from '../../rpc/result-json';
import type { PoolProtocol, Probe } from './pool-protocol';
import type { Upstream } from './upstream';

export const EVM_PROTOCOL: PoolProtocol = {
  async probe(u: Upstream, timeoutMs: number): Promise<Probe> {
    try {
      const [number, syncing, chainId] = await Promise.all([
        u.client.call(eth_blockNumber.name, [], timeoutMs),
        u.client.call(eth_syncing.name, [], timeoutMs),
        u.client.call(eth_chainId.name, [], timeoutMs),
      ]);
      return {
        ok: true,
        network: BigInt(String(chainId.result)).toString(),
        latest: BigInt(String(number.result)),
        // The eth API does not say how far back a node keeps state; the first block is assumed.
        earliest: 0n,
        catchingUp: syncing.result !== false,
      };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  },
  hasBlock: (u, height, timeoutMs) =>
    u.client.call(eth_getBlockTransactionCountByNumber.name, [`0x${height.toString(16)}`], timeoutMs).then(
      ({ result }) => result !== null,
      () => false,
    ),
  chainOf(method, result) {
    if (method !== net_version.name && method !== eth_chainId.name) return undefined;
    const value = readResult(result);
    if (typeof value !== 'string') return undefined;
    if (method === net_version.name) return value;
    return /^0x[0-9a-fA-F]+$/.test(value) ? BigInt(value).toString() : undefined;
  },
  // A node that has not seen a block (lagging within max_height_lag, or pruned) says so in these words.
  missingHere: [/header not found/i, /unknown block/i, /BlockOutOfRange/i, /missing trie node/i, /required historical state unavailable/i],
  answerError: (err) => new ApplicationError(err.rpcMessage || err.detail, err.code, err.data),
  noneConfigured: 'no EVM upstream configured',
  noneHealthy: 'no healthy EVM upstream available',
};
