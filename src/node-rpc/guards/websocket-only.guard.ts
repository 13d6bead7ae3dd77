import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { guardedCall } from '../../rpc/dispatcher';
import { MethodNotFoundError } from '../../rpc/errors';

/** subscribe, unsubscribe and unsubscribe_all need a connection to push to: refused over HTTP. */
@Injectable()
export class WebsocketOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { call, ctx } = guardedCall(context);
    if (call.spec.websocketOnly && ctx.transport !== 'ws') throw new MethodNotFoundError('websocket-only');
    return true;
  }
}
