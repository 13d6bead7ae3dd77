import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { guardedCall } from '../../rpc/dispatcher';
import { MethodNotFoundError } from '../../rpc/errors';

/** What the spec lists as not implemented stays unavailable, even if a plugin registers it. */
const NOT_IMPLEMENTED = /^(eth_fillTransaction$|debug_getRaw|trace_|engine_)/;

@Injectable()
export class NotImplementedGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (NOT_IMPLEMENTED.test(guardedCall(context).call.spec.name)) throw new MethodNotFoundError('not-implemented');
    return true;
  }
}
