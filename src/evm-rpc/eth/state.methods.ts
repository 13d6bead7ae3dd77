import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type BlockRef, type EvmBackend } from '../../backends/evm-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import { defineMethod, optional, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import { cacheAt, heightAt } from '../block-rules';
import * as c from '../codec/codecs';
import { toQuantity } from '../codec/hex';
import { decodeStorageSlot } from '../codec/storage-slot';
import { toBackendArgs, type RpcTransactionArgs } from '../codec/transaction-args';

const LATEST: BlockRef = { kind: 'tag', tag: 'latest' };
const PENDING: BlockRef = { kind: 'tag', tag: 'pending' };

/** A read of the state at the call's `block`: kept as long as that block's state is, routed to nodes that have it. */
const atBlock = {
  cache: (a: { readonly block?: BlockRef }) => cacheAt(a.block),
  height: (a: { readonly block?: BlockRef }) => heightAt(a.block),
};

/**
 * Account state and execution at a block: balances, code, storage, proofs, eth_call, eth_estimateGas,
 * eth_createAccessList. A left-out block is `latest` (the spec, go-ethereum).
 */
@Injectable()
export class EthStateMethods implements MethodSource {
  constructor(
    @Inject(EVM_BACKEND) private readonly b: EvmBackend,
    private readonly config: GatewayConfigService,
  ) {}

  methods(): AnyMethod[] {
    const b = this.b;
    const read = { group: 'eth', idempotent: true, ...atBlock } as const;
    // Not forwarded as sent: a left-out block is `latest`, and nodes that require it (Evmos, anvil) get
    // it written out by the upstream backend.
    const stateRead = read;
    // The block is optional (the spec; go-ethereum): left out, it is `latest`, and cached as such.
    const at = optional('block', c.blockNumberOrHash);
    return [
      defineMethod({
        ...stateRead,
        name: 'eth_getBalance',
        params: [param('address', c.address), at],
        handler: async (a) => toQuantity(await b.getBalance(a.address, a.block ?? LATEST)),
      }),
      defineMethod({
        ...stateRead,
        name: 'eth_getStorageAt',
        params: [param('address', c.address), param('slot', c.string), at],
        handler: (a) => b.getStorageAt(a.address, decodeStorageSlot(a.slot), a.block ?? LATEST),
      }),
      defineMethod({
        ...stateRead,
        name: 'eth_getTransactionCount',
        params: [param('address', c.address), at],
        handler: async (a) => toQuantity(await b.getTransactionCount(a.address, a.block ?? LATEST)),
      }),
      defineMethod({ ...stateRead, name: 'eth_getCode', params: [param('address', c.address), at], handler: (a) => b.getCode(a.address, a.block ?? LATEST) }),
      defineMethod({
        ...stateRead,
        name: 'eth_getProof',
        params: [param('address', c.address), param('storageKeys', c.strings), at],
        handler: (a) => b.getProof(a.address, a.storageKeys.map(decodeStorageSlot), a.block ?? LATEST),
      }),
      // Forwarded: the upstream node applies its own gas cap, as it does to eth_call.
      defineMethod({
        ...read,
        forward: true,
        name: 'eth_createAccessList',
        params: [param('args', c.transactionArgs), optional('block', c.blockNumberOrHash)],
        handler: (a) => b.createAccessList(toBackendArgs(a.args), a.block ?? LATEST, this.limits()),
      }),
      // eth_call and eth_estimateGas are not forwarded: the gateway caps their gas and sets their timeout.
      defineMethod({
        ...read,
        name: 'eth_call',
        params: [param('args', c.transactionArgs), optional('block', c.blockNumberOrHash), optional('overrides', c.stateOverride)],
        handler: (a) => this.call(a.args, a.block ?? LATEST, a.overrides),
      }),
      defineMethod({
        ...read,
        name: 'eth_estimateGas',
        params: [param('args', c.transactionArgs), optional('block', c.blockNumber)],
        // Without a block it estimates against the pending state, which is not kept.
        cache: (a) => cacheAt(a.block ?? PENDING),
        handler: async (a) => toQuantity(await b.estimateGas(toBackendArgs(a.args), a.block ?? PENDING, this.limits())),
      }),
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
