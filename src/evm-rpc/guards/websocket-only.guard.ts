import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { guardedCall } from '../../rpc/dispatcher';
import { ApplicationError } from '../../rpc/errors';

/**
 * Subscriptions need a connection to push to. Over HTTP go-ethereum refuses `*_subscribe` with
 * `notifications not supported` and finds no subscription for `*_unsubscribe`.
 */
@Injectable()
export class WebsocketOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { call, ctx } = guardedCall(context);
    if (!call.spec.websocketOnly || ctx.transport === 'ws') return true;
    throw new ApplicationError(call.spec.name.endsWith('_unsubscribe') ? 'subscription not found' : 'notifications not supported');
  }
}
