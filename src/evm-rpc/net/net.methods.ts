import { defineMethod, IMMUTABLE, LATEST, returns } from '../../rpc/method';

/** net: the network id, and the backend node's p2p state (peer count as a JSON number, as Evmos). */
const read = { group: 'net', idempotent: true } as const;

export const net_version = defineMethod({ ...read, name: 'net_version', params: [], cache: () => IMMUTABLE, result: returns<string>() });
export const net_listening = defineMethod({ ...read, name: 'net_listening', params: [], cache: () => LATEST, result: returns<boolean>() });
export const net_peerCount = defineMethod({ ...read, name: 'net_peerCount', params: [], cache: () => LATEST, result: returns<number | string>() });

export const netMethods = [net_version, net_listening, net_peerCount];
