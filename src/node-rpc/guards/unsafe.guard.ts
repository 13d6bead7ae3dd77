import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { guardedCall } from '../../rpc/dispatcher';
import { MethodNotFoundError } from '../../rpc/errors';

/** Unsafe methods exist only with `[rpc] unsafe = true`; otherwise they are unknown, as in CometBFT. */
@Injectable()
export class UnsafeGuard implements CanActivate {
  constructor(private readonly config: GatewayConfigService) {}

  canActivate(context: ExecutionContext): boolean {
    const { call } = guardedCall(context);
    if (call.spec.unsafe && !this.config.rpc.unsafe) throw new MethodNotFoundError('unsafe');
    return true;
  }
}
