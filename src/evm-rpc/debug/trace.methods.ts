import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type BlockRef, type EvmBackend, type TraceConfig } from '../../backends/evm-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import { defineMethod, IMMUTABLE, optional, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import { cacheAt, foundAt, heightAt } from '../block-rules';
import * as c from '../codec/codecs';
import { toBackendArgs } from '../codec/transaction-args';

const isGenesis = (block: BlockRef): boolean =>
  (block.kind === 'number' && block.number === 0n) || (block.kind === 'tag' && block.tag === 'earliest');

/** debug_trace*: the backend's tracers over a transaction, a block or a call. */
@Injectable()
export class DebugTraceMethods implements MethodSource {
  constructor(
    @Inject(EVM_BACKEND) private readonly b: EvmBackend,
    private readonly config: GatewayConfigService,
  ) {}

  methods(): AnyMethod[] {
    const b = this.b;
    const read = { group: 'debug', idempotent: true } as const;
    const config = optional('config', c.traceConfig);
    const options = (a: { readonly config?: TraceConfig }): TraceConfig => a.config ?? {};
    return [
      defineMethod({
        ...read,
        name: 'debug_traceTransaction',
        params: [param('hash', c.hash), config],
        forward: true,
        cache: () => IMMUTABLE,
        handler: (a) => b.traceTransaction(a.hash, options(a)),
      }),
      defineMethod({
        ...read,
        name: 'debug_traceBlockByNumber',
        params: [param('block', c.blockNumber), config],
        forward: true,
        cache: (a) => foundAt(a.block),
        height: (a) => heightAt(a.block),
        handler: (a) => {
          if (isGenesis(a.block)) throw new ApplicationError('genesis is not traceable');
          return b.traceBlock(a.block, options(a));
        },
      }),
      defineMethod({
        ...read,
        name: 'debug_traceBlockByHash',
        params: [param('hash', c.hash), config],
        forward: true,
        cache: () => IMMUTABLE,
        handler: (a) => b.traceBlock({ kind: 'hash', hash: a.hash, requireCanonical: false }, options(a)),
      }),
      // Not forwarded: the gateway caps the call's gas and sets its timeout.
      defineMethod({
        ...read,
        name: 'debug_traceCall',
        params: [param('args', c.transactionArgs), param('block', c.blockNumberOrHash), config],
        cache: (a) => cacheAt(a.block),
        height: (a) => heightAt(a.block),
        handler: (a) => {
          const rpc = this.config.jsonRpc;
          return b.traceCall(toBackendArgs(a.args), a.block, options(a), { gasCap: BigInt(rpc['gas-cap']), timeoutMs: rpc['evm-timeout'] });
        },
      }),
    ];
  }
}
