import type { EvmBackend } from '../../backends/evm-backend';
import { defineMethod, IMMUTABLE, LATEST, type AnyMethod } from '../../rpc/method';

/** net: the network id, and the backend node's p2p state (peer count as a JSON number, as Evmos). */
export function netMethods(b: EvmBackend): AnyMethod[] {
  const read = { group: 'net', idempotent: true, forward: true } as const;
  return [
    defineMethod({ ...read, name: 'net_version', params: [], cache: () => IMMUTABLE, handler: () => b.networkId() }),
    defineMethod({ ...read, name: 'net_listening', params: [], cache: () => LATEST, handler: async () => (await b.netInfo()).listening }),
    defineMethod({ ...read, name: 'net_peerCount', params: [], cache: () => LATEST, handler: async () => (await b.netInfo()).peerCount }),
  ];
}
