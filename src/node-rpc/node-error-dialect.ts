import { Logger } from '@nestjs/common';
import type { CallContext } from '../rpc/call-context';
import type { ErrorDialect, RpcRequest } from '../rpc/dispatcher';
import { ApplicationError, InternalError, InvalidParamsError, MethodNotFoundError, RpcError } from '../rpc/errors';

/**
 * CometBFT's error envelope: fixed messages with the detail in `data`; a handler failure is -32603
 * "Internal error"; over WebSocket, param conversion errors are -32603 too.
 */
export class NodeErrorDialect implements ErrorDialect {
  private readonly logger = new Logger('NodeRpc');

  toRpcError(err: unknown, request: RpcRequest, ctx: CallContext): RpcError {
    if (err instanceof MethodNotFoundError) return new MethodNotFoundError(err.reason);
    if (err instanceof InvalidParamsError && ctx.transport === 'ws') return new InternalError('Internal error', err.data);
    if (err instanceof ApplicationError) return new InternalError('Internal error', err.message);
    if (err instanceof RpcError) return err;
    this.logger.error(`${request.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return new InternalError('Internal error', 'internal error');
  }
}
