import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { guardedCall } from '../../rpc/dispatcher';
import { MethodNotFoundError } from '../../rpc/errors';
import { RPC_NAMESPACE } from '../core/rpc-modules';

/** A namespace not listed in `[json-rpc] api` does not exist for clients (`rpc` always does). */
@Injectable()
export class NamespaceGuard implements CanActivate {
  constructor(private readonly config: GatewayConfigService) {}

  canActivate(context: ExecutionContext): boolean {
    const { group } = guardedCall(context).call.spec;
    if (group !== RPC_NAMESPACE && !this.config.jsonRpc.api.includes(group)) throw new MethodNotFoundError('namespace-disabled');
    return true;
  }
}
