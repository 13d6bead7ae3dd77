import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type BlockRef, type EvmBackend, type TraceConfig } from '../../backends/evm-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import type { MethodSpec } from '../../rpc/method-spec';
import { toBackendArgs } from '../codec/transaction-args';
import { param, type MethodTable } from '../core/evm-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

const isGenesis = (block: BlockRef): boolean =>
  (block.kind === 'number' && block.number === 0n) || (block.kind === 'tag' && block.tag === 'earliest');

/** debug_trace*: the backend's tracers over a transaction, a block or a call. */
@Injectable()
export class DebugTraceMethods implements MethodTable {
  constructor(
    @Inject(EVM_BACKEND) private readonly b: EvmBackend,
    private readonly config: GatewayConfigService,
  ) {}

  methods(): MethodSpec[] {
    const b = this.b;
    const read = { group: 'debug', idempotent: true };
    const config = param('config', 'traceConfig', true);
    const options = (a: A): TraceConfig => a.config ?? {};
    return [
      { ...read, name: 'debug_traceTransaction', params: [param('hash', 'hash'), config], handler: (a: A) => b.traceTransaction(a.hash, options(a)) },
      {
        ...read,
        name: 'debug_traceBlockByNumber',
        params: [param('block', 'blockNumber'), config],
        handler: (a: A) => {
          if (isGenesis(a.block)) throw new ApplicationError('genesis is not traceable');
          return b.traceBlock(a.block, options(a));
        },
      },
      {
        ...read,
        name: 'debug_traceBlockByHash',
        params: [param('hash', 'hash'), config],
        handler: (a: A) => b.traceBlock({ kind: 'hash', hash: a.hash, requireCanonical: false }, options(a)),
      },
      {
        ...read,
        name: 'debug_traceCall',
        params: [param('args', 'transactionArgs'), param('block', 'blockNumberOrHash'), config],
        handler: (a: A) => {
          const rpc = this.config.jsonRpc;
          return b.traceCall(toBackendArgs(a.args), a.block, options(a), { gasCap: BigInt(rpc['gas-cap']), timeoutMs: rpc['evm-timeout'] });
        },
      },
    ];
  }
}
