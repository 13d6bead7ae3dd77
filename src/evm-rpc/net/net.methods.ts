import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type EvmBackend } from '../../backends/evm-backend';
import { defineMethod, IMMUTABLE, LATEST, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';

/** net: the network id, and the backend node's p2p state (peer count as a JSON number, as Evmos). */
@Injectable()
export class NetMethods implements MethodSource {
  constructor(@Inject(EVM_BACKEND) private readonly b: EvmBackend) {}

  methods(): AnyMethod[] {
    const read = { group: 'net', idempotent: true, forward: true } as const;
    return [
      defineMethod({ ...read, name: 'net_version', params: [], cache: () => IMMUTABLE, handler: () => this.b.networkId() }),
      defineMethod({ ...read, name: 'net_listening', params: [], cache: () => LATEST, handler: async () => (await this.b.netInfo()).listening }),
      defineMethod({ ...read, name: 'net_peerCount', params: [], cache: () => LATEST, handler: async () => (await this.b.netInfo()).peerCount }),
    ];
  }
}
