import { Injectable } from '@nestjs/common';
import { ApplicationError } from '../../rpc/errors';
import type { MethodSpec } from '../../rpc/method-spec';
import { param, type MethodTable } from '../core/evm-method';
import { MinerSettings } from './miner-settings';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/** miner, as Evmos serves it: a validator chain has no mining, but etherbase and gas price are settable. */
@Injectable()
export class MinerMethods implements MethodTable {
  constructor(private readonly settings: MinerSettings) {}

  methods(): MethodSpec[] {
    const group = 'miner';
    const unsupported = (name: string, params: MethodSpec['params']): MethodSpec => ({
      group,
      name,
      params,
      handler: () => {
        throw new ApplicationError(`unsupported rpc function: ${name}`);
      },
    });
    return [
      {
        group,
        name: 'miner_setEtherbase',
        params: [param('etherbase', 'address')],
        handler: (a: A) => {
          this.settings.etherbase = a.etherbase;
          return true;
        },
      },
      {
        group,
        name: 'miner_setGasPrice',
        params: [param('gasPrice', 'big')],
        handler: (a: A) => {
          this.settings.minGasPrice = a.gasPrice;
          return true;
        },
      },
      { group, name: 'miner_getHashrate', params: [], idempotent: true, handler: () => 0 },
      { group, name: 'miner_setGasLimit', params: [param('gasLimit', 'uint')], handler: () => false },
      { group, name: 'miner_stop', params: [], handler: () => null },
      unsupported('miner_setExtra', [param('extra', 'string')]),
      unsupported('miner_start', [param('threads', 'int', true)]),
    ];
  }
}
