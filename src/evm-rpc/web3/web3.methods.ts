import { keccak256 } from 'ethers';
import { defineMethod, IMMUTABLE, LATEST, param, returns } from '../../rpc/method';
import * as c from '../codec/codecs';

/** web3: the client version, and Keccak-256 of hex-decoded input (as go-ethereum computes it). */
const read = { group: 'web3', idempotent: true } as const;

export const web3_clientVersion = defineMethod({ ...read, name: 'web3_clientVersion', params: [], cache: () => LATEST, result: returns<string>() });

export const web3Methods = [
  web3_clientVersion,
  defineMethod({ ...read, name: 'web3_sha3', params: [param('input', c.data)], cache: () => IMMUTABLE, handler: (a) => keccak256(a.input) }),
];
