import { Inject, Injectable } from '@nestjs/common';
import { keccak256 } from 'ethers';
import { EVM_BACKEND, type EvmBackend } from '../../backends/evm-backend';
import type { MethodSpec } from '../../rpc/method-spec';
import { param, type MethodTable } from '../core/evm-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/** web3: the client version, and Keccak-256 of hex-decoded input (as go-ethereum computes it). */
@Injectable()
export class Web3Methods implements MethodTable {
  constructor(@Inject(EVM_BACKEND) private readonly b: EvmBackend) {}

  methods(): MethodSpec[] {
    const read = { group: 'web3', idempotent: true };
    return [
      { ...read, name: 'web3_clientVersion', params: [], handler: () => this.b.clientVersion() },
      { ...read, name: 'web3_sha3', params: [param('input', 'data')], immutable: () => true, handler: (a: A) => keccak256(a.input) },
    ];
  }
}
