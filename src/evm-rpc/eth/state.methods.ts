import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type BlockRef, type EvmBackend } from '../../backends/evm-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import type { MethodSpec } from '../../rpc/method-spec';
import { toQuantity } from '../codec/hex';
import { decodeStorageSlot } from '../codec/storage-slot';
import { toBackendArgs, type RpcTransactionArgs } from '../codec/transaction-args';
import { param, type MethodTable } from '../core/evm-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

const LATEST: BlockRef = { kind: 'tag', tag: 'latest' };
const PENDING: BlockRef = { kind: 'tag', tag: 'pending' };

/** Account state and execution at a block: balances, code, storage, proofs, eth_call, eth_estimateGas. */
@Injectable()
export class EthStateMethods implements MethodTable {
  constructor(
    @Inject(EVM_BACKEND) private readonly b: EvmBackend,
    private readonly config: GatewayConfigService,
  ) {}

  methods(): MethodSpec[] {
    const b = this.b;
    const read = { group: 'eth', idempotent: true };
    const at = param('block', 'blockNumberOrHash');
    return [
      { ...read, name: 'eth_getBalance', params: [param('address', 'address'), at], handler: async (a: A) => toQuantity(await b.getBalance(a.address, a.block)) },
      {
        ...read,
        name: 'eth_getStorageAt',
        params: [param('address', 'address'), param('slot', 'string'), at],
        handler: (a: A) => b.getStorageAt(a.address, decodeStorageSlot(a.slot), a.block),
      },
      {
        ...read,
        name: 'eth_getTransactionCount',
        params: [param('address', 'address'), at],
        handler: async (a: A) => toQuantity(await b.getTransactionCount(a.address, a.block)),
      },
      { ...read, name: 'eth_getCode', params: [param('address', 'address'), at], handler: (a: A) => b.getCode(a.address, a.block) },
      {
        ...read,
        name: 'eth_getProof',
        params: [param('address', 'address'), param('storageKeys', 'strings'), at],
        handler: (a: A) => b.getProof(a.address, (a.storageKeys as string[]).map(decodeStorageSlot), a.block),
      },
      {
        ...read,
        name: 'eth_call',
        params: [param('args', 'transactionArgs'), param('block', 'blockNumberOrHash', true), param('overrides', 'stateOverride', true)],
        handler: (a: A) => this.call(a.args, a.block ?? LATEST, a.overrides),
      },
      {
        ...read,
        name: 'eth_estimateGas',
        params: [param('args', 'transactionArgs'), param('block', 'blockNumber', true)],
        handler: async (a: A) => toQuantity(await b.estimateGas(toBackendArgs(a.args), a.block ?? PENDING, this.limits())),
      },
    ];
  }

  private call(args: RpcTransactionArgs, block: BlockRef, overrides: Record<string, unknown> | undefined): Promise<string> {
    // The backends cannot apply overrides; answering without them would be silently wrong.
    if (overrides && Object.keys(overrides).length > 0) throw new ApplicationError('state overrides are not supported');
    return this.b.call(toBackendArgs(args), block, this.limits());
  }

  private limits(): { gasCap: bigint; timeoutMs: number } {
    const rpc = this.config.jsonRpc;
    return { gasCap: BigInt(rpc['gas-cap']), timeoutMs: rpc['evm-timeout'] };
  }
}
