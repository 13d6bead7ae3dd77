import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type EvmBackend } from '../../backends/evm-backend';
import type { MethodSpec } from '../../rpc/method-spec';
import type { MethodTable } from '../core/evm-method';

/** net: the network id, and the backend node's p2p state (peer count as a JSON number, as Evmos). */
@Injectable()
export class NetMethods implements MethodTable {
  constructor(@Inject(EVM_BACKEND) private readonly b: EvmBackend) {}

  methods(): MethodSpec[] {
    const read = { group: 'net', idempotent: true };
    return [
      { ...read, name: 'net_version', params: [], handler: () => this.b.networkId() },
      { ...read, name: 'net_listening', params: [], handler: async () => (await this.b.netInfo()).listening },
      { ...read, name: 'net_peerCount', params: [], handler: async () => (await this.b.netInfo()).peerCount },
    ];
  }
}
