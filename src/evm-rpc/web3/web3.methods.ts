import { Inject, Injectable } from '@nestjs/common';
import { keccak256 } from 'ethers';
import { EVM_BACKEND, type EvmBackend } from '../../backends/evm-backend';
import { defineMethod, IMMUTABLE, LATEST, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import * as c from '../codec/codecs';

/** web3: the client version, and Keccak-256 of hex-decoded input (as go-ethereum computes it). */
@Injectable()
export class Web3Methods implements MethodSource {
  constructor(@Inject(EVM_BACKEND) private readonly b: EvmBackend) {}

  methods(): AnyMethod[] {
    const read = { group: 'web3', idempotent: true } as const;
    return [
      defineMethod({ ...read, name: 'web3_clientVersion', params: [], forward: true, cache: () => LATEST, handler: () => this.b.clientVersion() }),
      defineMethod({ ...read, name: 'web3_sha3', params: [param('input', c.data)], cache: () => IMMUTABLE, handler: (a) => keccak256(a.input) }),
    ];
  }
}
