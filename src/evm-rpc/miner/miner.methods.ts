import { Injectable } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import { defineMethod, optional, param, type AnyMethod, type Params } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import * as c from '../codec/codecs';
import { MinerSettings } from './miner-settings';

/** miner, as Evmos serves it: a validator chain has no mining, but etherbase and gas price are settable. */
@Injectable()
export class MinerMethods implements MethodSource {
  constructor(
    private readonly settings: MinerSettings,
    private readonly config: GatewayConfigService,
  ) {}

  methods(): AnyMethod[] {
    const group = 'miner';
    const unsupported = (name: string, params: Params): AnyMethod =>
      defineMethod({
        group,
        name,
        params,
        handler: () => {
          throw new ApplicationError(`unsupported rpc function: ${name}`);
        },
      });
    return [
      defineMethod({
        group,
        name: 'miner_setEtherbase',
        params: [param('etherbase', c.address)],
        // Evmos answers false, not an error, when allow-insecure-unlock is off.
        handler: (a) => {
          if (!this.config.jsonRpc['allow-insecure-unlock']) return false;
          this.settings.etherbase = a.etherbase;
          return true;
        },
      }),
      defineMethod({
        group,
        name: 'miner_setGasPrice',
        params: [param('gasPrice', c.big)],
        handler: (a) => {
          this.settings.minGasPrice = a.gasPrice;
          return true;
        },
      }),
      defineMethod({ group, name: 'miner_getHashrate', params: [], idempotent: true, handler: () => 0 }),
      defineMethod({ group, name: 'miner_setGasLimit', params: [param('gasLimit', c.uint)], handler: () => false }),
      defineMethod({ group, name: 'miner_stop', params: [], handler: () => null }),
      unsupported('miner_setExtra', [param('extra', c.string)]),
      unsupported('miner_start', [optional('threads', c.int)]),
    ];
  }
}
